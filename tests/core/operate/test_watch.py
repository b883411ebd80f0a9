"""`revetly watch`'s rules: what it watches, which changes run a pass, and its marker."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from revetly_core.operate.watch import (
    marker_path,
    relevant_change,
    watch,
    watch_running,
    watched_paths,
)

from tests.core.gitrepo import Instance


def test_the_engine_state_and_git_objects_run_no_pass(tmp_path: Path) -> None:
    state = tmp_path / ".revetly"
    assert relevant_change(str(state / "context.db"), state) is False
    assert relevant_change(str(tmp_path / ".git" / "objects" / "ab" / "cd"), state) is False
    assert relevant_change(str(tmp_path / ".git" / "index.lock"), state) is False
    assert relevant_change(str(tmp_path / ".git" / "refs" / "heads" / "main"), state) is True
    assert relevant_change(str(tmp_path / "backlog" / "STORY-1.md"), state) is True


def test_it_watches_the_folders_and_each_code_repository_git_folder(floored: Instance,
                                                                   tmp_path: Path) -> None:
    paths = watched_paths(floored.root, floored.engine().config)
    assert floored.root / ".git" in paths
    assert (tmp_path / "app" / ".git").resolve() in [p.resolve() for p in paths]
    assert all(p.exists() for p in paths)


def test_a_marker_naming_a_dead_process_is_not_watching(tmp_path: Path) -> None:
    marker_path(tmp_path).write_text(json.dumps({"pid": 2**22 + 12345}))
    assert watch_running(tmp_path) is False
    marker_path(tmp_path).write_text(json.dumps({"pid": os.getpid()}))
    assert watch_running(tmp_path) is True
    marker_path(tmp_path).write_text("not json")
    assert watch_running(tmp_path) is False


def test_watch_with_a_pass_budget_runs_it_and_removes_its_marker(floored: Instance) -> None:
    events: list[dict[str, object]] = []
    summary = watch(floored.root, floored.engine().config, max_passes=1, stop=threading.Event(),
                    report=events.append)
    assert summary["passes"] == 1
    assert [e["event"] for e in events] == ["watching", "pass"]
    assert not marker_path(floored.root / ".revetly").exists()
