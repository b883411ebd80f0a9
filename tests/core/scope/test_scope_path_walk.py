"""The path walk on Backlog.md data: every declared alias and dotted family, the commit that
added the file, and subject or trailer names over body prose."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from fixture_repo import BACKLOG_MD, build_fixture_repo  # noqa: E402

from revetly_core import Engine  # noqa: E402
from revetly_core.config import load_config
from revetly_core.scope.behind import named_in, path_from_folder, story_finder, trailer_block
from revetly_core.scope.path_history import PathCommit, brought_in


def commit(sha: str, change: str = "modified", subject: str = "", body: str = "") -> PathCommit:
    return PathCommit(sha, "2025-01-01T00:00:00+00:00", subject, body, "a.go", change)


def test_brought_in_is_the_commit_that_added_the_path() -> None:
    history = [commit("c3"), commit("c2", "renamed"), commit("c1", "added"), commit("c0")]
    assert brought_in(history) == history[2]
    assert brought_in([commit("c9"), commit("c8", "renamed")]) is None


def test_the_last_paragraph_of_key_value_lines_is_the_trailer_block() -> None:
    assert trailer_block("Why.\n\nRefs: BACK-3\nCo-authored-by: A <a@x>") == (
        "Why.", "Refs: BACK-3\nCo-authored-by: A <a@x>")
    assert trailer_block("Why.\n\nSee BACK-3 for more.") == ("Why.\n\nSee BACK-3 for more.", "")


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Engine]:
    base = tmp_path_factory.mktemp("walk")
    repo = build_fixture_repo(BACKLOG_MD, base / "tally")
    Engine.init(base / "inst", source=("backlog-md", str(repo)))
    engine = Engine.open(base / "inst")
    engine.sync()
    return repo, engine


def test_subject_and_trailer_ids_are_strong_body_prose_is_weak(
    tally: tuple[Path, Engine],
) -> None:
    _, engine = tally
    finder = story_finder(load_config(engine.root))
    strong, weak = named_in(finder, commit(
        "c", subject="Fix task-15", body="Diagram: BACK-2 -> BACK-3\n\nRefs: BACK-7.2"))
    assert [k.text() for k in strong] == ["BACK:15", "BACK:7.2"]
    assert [k.text() for k in weak] == ["BACK:2", "BACK:3"]


def behind_ids(engine: Engine, path: str) -> list[str]:
    out = engine.get_scope("binding", path=path)
    return [b["artifact_id"] for b in out["behind"] if b["kind"] == "task"]


def test_an_alias_in_a_commit_message_binds_the_file(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    assert behind_ids(engine, "internal/config/config.go")[:1] == ["BACK-15"]
    assert behind_ids(engine, "internal/timer/timer.go")[:1] == ["BACK-1"]


def test_a_dotted_sub_task_binds_itself_not_its_parent(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    assert behind_ids(engine, "internal/store/tombstone.go")[:1] == ["BACK-7.02"]


def test_the_adding_commit_is_named_in_why(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    out = engine.get_scope("binding", path="internal/config/config.go")
    assert "brought the file in" in out["behind"][0]["why"]


def test_a_path_is_read_from_the_folder_one_stands_in(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    config = load_config(engine.root)
    inside = repo / "internal" / "config"
    assert path_from_folder(config, engine.root, "config.go", inside) == os.path.join(
        str(inside), "config.go")
    assert path_from_folder(config, engine.root, "internal/config/config.go", repo) == (
        "internal/config/config.go")
    assert path_from_folder(config, engine.root, "x.go", engine.root) == "x.go"
    absolute = path_from_folder(config, engine.root, "config.go", inside)
    assert behind_ids(engine, absolute)[:1] == ["BACK-15"]
