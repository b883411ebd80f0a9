"""Writes land inside the instance: a linked folder or file is refused (and named by check)."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.writes.containment import contained, link_on_path

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine


def test_a_records_folder_that_links_outside_is_refused_and_nothing_lands(
        winst: Instance, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (winst.root / "records").symlink_to(outside, target_is_directory=True)
    head = winst.git.head
    with pytest.raises(Refusal) as exc:
        engine(winst).set_status("STORY-0001", "done", verdicts=["met", "met"])
    assert exc.value.code == "outside-instance" and exc.value.extra["wrote"] is False
    assert "records is a symbolic link" in exc.value.detail
    assert list(outside.iterdir()) == [] and winst.git.head == head


def test_check_names_a_write_folder_that_is_a_link(winst: Instance, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (winst.root / "records").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    found = engine(winst).check()
    assert not found["ok"]
    assert {"path": "records", "code": "write-target-outside"}.items() <= next(
        p for p in found["problems"] if p["code"] == "write-target-outside").items()


def test_a_story_file_that_is_a_link_is_not_written_through(
        winst: Instance, tmp_path: Path) -> None:
    story = winst.root / "backlog" / "STORY-0001.md"
    target = tmp_path / "story-elsewhere.md"
    target.write_bytes(story.read_bytes())
    story.unlink()
    story.symlink_to(target)
    with pytest.raises(Refusal) as exc:
        engine(winst).set_status("STORY-0001", "parked")
    assert exc.value.code == "outside-instance"
    assert "status: ready" in target.read_text()


def test_link_on_path_names_the_first_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    assert link_on_path(tmp_path, "real/new.md") is None
    assert link_on_path(tmp_path, "link/new.md") == "link is a symbolic link"
    assert link_on_path(tmp_path, "real", folder=True) is None


@pytest.mark.parametrize("rel", ["../x.md", "/etc/passwd", "."])
def test_contained_refuses_what_is_not_a_file_in_the_instance(tmp_path: Path, rel: str) -> None:
    with pytest.raises(Refusal) as exc:
        contained(tmp_path, tmp_path / rel if not rel.startswith("/") else Path(rel))
    assert exc.value.code == "outside-instance"
