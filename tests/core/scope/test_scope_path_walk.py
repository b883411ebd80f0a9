"""The path walk on Backlog.md data: every declared alias and dotted family, the commit that
added the file, and subject or trailer names over body prose."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.config import load_config
from revetly_core.scope.behind import named_in, story_finder, trailer_block
from revetly_core.scope.path_history import PathCommit, brought_in

from revetly_core import Engine
from tests.fixtures.fixture_repo import BACKLOG_MD, build_fixture_repo


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
    inside = repo / "internal" / "config"
    assert engine.repository_path("config.go", cwd=inside) == "internal/config/config.go"
    assert engine.repository_path("internal/config/config.go", cwd=repo) == (
        "internal/config/config.go")
    assert engine.repository_path("x.go", cwd=engine.root) == "x.go"
    typed = engine.repository_path("config.go", cwd=inside)
    assert behind_ids(engine, typed)[:1] == ["BACK-15"]


# -- the authoring bundle's paths: the same walk, read from the stories --------------------------


def test_a_sweeping_commit_says_less_about_each_file() -> None:
    from revetly_core.scope.story_paths import file_share

    assert file_share(1.0, 1) == 1.0
    assert file_share(1.0, 4) == 0.5
    assert file_share(0.5, 0) == 0.5


def test_paths_behind_stories_name_their_code_not_the_backlog(
    tally: tuple[Path, Engine],
) -> None:
    from revetly_core.scope.story_paths import paths_block
    from revetly_core.store.db import Store

    _, engine = tally
    store = Store(engine.paths.db, readonly=True)
    try:
        block = paths_block(load_config(engine.root), store, ["BACK-15", "BACK-7.02"])
    finally:
        store.close()
    paths = [r["path"] for r in block["listed"]]
    assert set(paths) >= {"internal/config/config.go", "internal/store/tombstone.go"}
    assert not any(p.startswith("backlog/") for p in paths)
    row = next(r for r in block["listed"] if r["path"] == "internal/config/config.go")
    assert row["stories"] == ["BACK-15"] and row["commits"] == 1


def test_the_bundle_serves_the_paths_of_its_nearest_backlog(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    bundle = engine.get_authoring_context("config file week start idle minutes")
    assert "BACK-15" in [b["artifact_id"] for b in bundle["backlog"]]
    assert "internal/config/config.go" in [r["path"] for r in bundle["paths"]["listed"]]
    assert bundle["paths"]["total"] >= len(bundle["paths"]["listed"])


# -- drift on Backlog.md data: the task's own checklist is its delivery evidence -----------------


def test_drift_reads_checked_criteria_dod_and_final_summary(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    out = engine.get_scope("drift")
    rows = {r["artifact_id"]: r for r in out["checked_in_source"]}
    digest = rows["BACK-28"]
    assert (digest["criteria"], digest["checked"], digest["state"]) == (2, 1, "departures")
    assert digest["definition_of_done"] == {"total": 2, "checked": 1}
    assert digest["final_summary"].startswith("Shipped the Monday digest")
    assert rows["BACK-21"]["state"] == "clean"
    departs = [d for d in out["departures"] if d["artifact_id"] == "BACK-28"]
    assert departs == [{"artifact_id": "BACK-28", "record": None, "criterion": 2,
                        "text": "The digest can be switched off in the config file",
                        "verdict": "unchecked", "criterion_declared": True,
                        "evidence": "checklist"}]
    assert "BACK-28" not in {r["artifact_id"] for r in out["done_without_record"]}
    assert out["counts"]["checked_in_source"] == len(out["checked_in_source"])


def test_checklist_evidence_is_none_without_any_checklist() -> None:
    from revetly_core.model import Artifact
    from revetly_core.scope.drift import checklist_evidence

    bare = Artifact("BACK-1", "task", "t", "s", "p", status="done")
    assert checklist_evidence(bare) is None
    bare.metadata["final_summary"] = "Done it."
    assert checklist_evidence(bare) == {"criteria_checked": [], "final_summary": "Done it."}


def test_final_summary_reads_markers_then_the_heading() -> None:
    from revetly_core.connectors.backlog_md_markers import final_summary

    assert final_summary("## Final Summary\n\n<!-- SECTION:FINAL_SUMMARY:BEGIN -->\nIt shipped."
                         "\n<!-- SECTION:FINAL_SUMMARY:END -->\n") == "It shipped."
    assert final_summary("## Final Summary\n\nShipped it.\n\n## Notes\nx\n") == "Shipped it."
    assert final_summary("## Final Summary\n\n") is None
