"""A full pass's keyword index, fed by the re-link's one read of every artifact: the same index
a rebuild from the store writes, dropped with a failed pass, written after the commit when the
feed fails."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from revetly_core.ingest import linker as linker_module
from revetly_core.ingest.readpass import IndexFeed, start_feed
from revetly_core.instance.layout import InstancePaths
from revetly_core.model import Artifact
from revetly_core.store import keyword_fts5
from revetly_core.store.db import Store
from revetly_core.store.keyword import KeywordIndex

from revetly_core import Refusal
from tests.core.gitrepo import Instance, md


def stories(count: int) -> dict[str, str]:
    out = {}
    for n in range(1, count + 1):
        aid = f"STORY-{n:04d}"
        body = f"Builds on STORY-{max(1, n - 1):04d} and the story number {n + 1} flow.\n"
        out[f"backlog/{aid}.md"] = md(aid, f"Story number {n}", "story", body)
    return out


def index_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of an index database, rows sorted (FTS5's own tables included)."""
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(conn.execute(f'SELECT * FROM "{t}"'), key=repr) for t in tables}
    finally:
        conn.close()


def rebuilt_from_store(root: Path, into: Path) -> Path:
    """The index a rebuild from the store's rows writes (the path a non-full pass takes)."""
    store = Store(InstancePaths(root).db)
    try:
        KeywordIndex(into).rebuild(store.index_documents(), store.artifact_count(), revision=1)
    finally:
        store.close()
    return into / keyword_fts5.DB_FILE


def test_a_full_pass_feeds_the_index_a_rebuild_from_the_store_writes(
        instance: Instance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyword_fts5, "BUILD_BATCH", 3)  # several batches, and a last short one
    instance.git.write_and_commit(stories(8))
    instance.sync(full=True)
    fed = InstancePaths(instance.root).index / keyword_fts5.DB_FILE
    assert index_rows(fed) == index_rows(rebuilt_from_store(instance.root, tmp_path / "ix"))
    assert instance.health()["index"]["current"] is True


def test_a_fed_build_that_fails_is_written_after_the_commit_instead(
        instance: Instance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    instance.git.write_and_commit(stories(4))
    real_add = keyword_fts5.Fts5Build.add
    calls = {"n": 0}

    def fails_once(self: keyword_fts5.Fts5Build, a: Artifact) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        real_add(self, a)

    monkeypatch.setattr(keyword_fts5.Fts5Build, "add", fails_once)
    result = instance.sync(full=True)
    assert result["outcome"] == "succeeded"
    fed = InstancePaths(instance.root).index / keyword_fts5.DB_FILE
    assert index_rows(fed) == index_rows(rebuilt_from_store(instance.root, tmp_path / "ix"))
    assert instance.health()["index"]["current"] is True
    assert not (fed.parent / (keyword_fts5.DB_FILE + ".tmp")).exists()


def test_a_failed_pass_drops_its_fed_build_and_the_old_index_serves(
        instance: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    instance.git.write_and_commit(stories(3))
    first = instance.sync()
    index_dir = InstancePaths(instance.root).index
    before = index_rows(index_dir / keyword_fts5.DB_FILE)

    def boom(self: Any, a: Artifact) -> Any:
        raise RuntimeError("linker exploded")

    monkeypatch.setattr(linker_module.Linker, "links_of", boom)
    with pytest.raises(Refusal):
        instance.sync(full=True)
    monkeypatch.undo()
    assert index_rows(index_dir / keyword_fts5.DB_FILE) == before
    assert KeywordIndex(index_dir).revision() == first["corpus_revision"]
    assert sorted(p.name for p in index_dir.iterdir() if p.name.endswith(".tmp")) == []


def test_an_incremental_pass_or_a_whoosh_index_is_not_fed(tmp_path: Path) -> None:
    assert start_feed(KeywordIndex(tmp_path / "a"), full=False).build is None
    assert start_feed(KeywordIndex(tmp_path / "b", "whoosh"), full=True).build is None
    fed = start_feed(KeywordIndex(tmp_path / "c"), full=True)
    assert fed.build is not None
    fed.drop()
    assert fed.build is None and list((tmp_path / "c").iterdir()) == []


def test_a_feed_that_cannot_start_leaves_the_index_to_after_the_pass(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert start_feed(KeywordIndex(blocked / "index"), full=True).build is None


def test_a_dropped_feed_takes_nothing_more() -> None:
    feed = IndexFeed(None)
    feed.add(Artifact(id="STORY-0001", type="story", title="T", source="repository",
                      project="acme", body=""))
    feed.drop()
    assert feed.build is None
