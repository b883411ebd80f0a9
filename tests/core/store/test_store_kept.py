"""Read-only stores kept open per thread: reused, per thread, reopened when the file is replaced."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from revetly_core.model import Artifact
from revetly_core.refusal import Refusal
from revetly_core.store.db import Store
from revetly_core.store.kept import KeptReaders, file_identity

T0 = "2024-01-01T00:00:00+00:00"


def write_store(path: Path, *ids: str) -> None:
    with Store(path) as s:
        s.upsert_artifacts([Artifact(id=i, type="story", title=i, source="repository",
                                     project="acme") for i in ids], T0)


def test_one_thread_reads_through_one_kept_store(tmp_path: Path) -> None:
    db = tmp_path / "context.db"
    write_store(db, "STORY-0001")
    readers = KeptReaders(db)
    first = readers.get()
    assert readers.get() is first
    write_store(db, "STORY-0002")  # a later commit is read through the kept store
    assert first.get("STORY-0002") is not None


def test_each_thread_has_its_own_store(tmp_path: Path) -> None:
    db = tmp_path / "context.db"
    write_store(db, "STORY-0001")
    readers = KeptReaders(db)
    mine = readers.get()
    theirs: list[object] = []
    worker = threading.Thread(target=lambda: theirs.append(readers.get()))
    worker.start()
    worker.join()
    assert theirs and theirs[0] is not mine


def test_a_replaced_database_is_reopened(tmp_path: Path) -> None:
    db = tmp_path / "state" / "context.db"
    write_store(db, "STORY-0001")
    readers = KeptReaders(db)
    before = readers.get()
    shutil.rmtree(db.parent)
    write_store(db, "STORY-0009")
    after = readers.get()
    assert after is not before
    assert after.get("STORY-0009") is not None and after.get("STORY-0001") is None


def test_an_absent_database_is_refused_as_not_synced(tmp_path: Path) -> None:
    db = tmp_path / "context.db"
    readers = KeptReaders(db)
    with pytest.raises(Refusal) as refused:
        readers.get()
    assert refused.value.code == "not-synced"
    assert file_identity(db) is None
    write_store(db, "STORY-0001")
    assert readers.get().get("STORY-0001") is not None



def test_a_kept_store_reads_through_a_larger_page_cache(tmp_path: Path) -> None:
    from revetly_core.store.kept import KEPT_CACHE_KIB

    db = tmp_path / "context.db"
    write_store(db, "STORY-0001")
    kept = KeptReaders(db).get()
    assert kept.conn.execute("PRAGMA cache_size").fetchone()[0] == -KEPT_CACHE_KIB
