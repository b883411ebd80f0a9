"""File modes: instance files follow the umask (a changed file keeps its own), secrets 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.writes.files import SECRET_MODE, atomic_write, current_umask

from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine


@pytest.fixture()
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_instance_file_gets_the_umask_mode(winst: Instance, umask_022: None) -> None:
    out = engine(winst).record_conversation("Modes", "A note.")
    assert _mode(winst.root / out["conversation"]["path"]) == 0o644


def test_a_changed_file_keeps_its_mode(winst: Instance, umask_022: None) -> None:
    story = winst.root / "backlog" / "STORY-0001.md"
    story.chmod(0o640)
    engine(winst).set_status("STORY-0001", "parked")
    assert _mode(story) == 0o640


def test_a_review_record_follows_the_umask(winst: Instance, umask_022: None) -> None:
    rid = engine(winst).submit_draft("Modes", "d", ["c"])["review_id"]
    assert _mode(winst.root / ".revetly" / "reviews" / f"{rid}.json") == 0o644


def test_a_secret_stays_0600_whatever_the_umask(tmp_path: Path, umask_022: None) -> None:
    atomic_write(tmp_path / "owner.token", b"s3cret", mode=SECRET_MODE)
    assert _mode(tmp_path / "owner.token") == 0o600


def test_the_umask_is_read_without_changing_it(umask_022: None) -> None:
    assert current_umask() == 0o022
    assert current_umask() == 0o022
