"""The backlog-md source end to end: the hand-written Tally fixture as a real git repository,
read in place by an instance `revetly init --from backlog-md` made, then searched, inspected,
branched and checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from revetly_core import Engine
from tests.fixtures.fixture_repo import BACKLOG_MD, build_fixture_repo

MESSY = {
    "backlog/completed/back-23 - Color-output.md": "disagrees with the folder",
    "backlog/decisions/decision-6 - Rounding-per-entry.md": "not a decision status",
    "backlog/tasks/back-12 - Export-CSV-copy.md": "also carried by",
    "backlog/tasks/back-13 - Shell-completion.md": "'@sam' as quoted text",
    "backlog/tasks/back-14 - Pomodoro-mode.md": "'Blocked' is not in the declared status table",
    "backlog/tasks/back-16 - Timezone-travel.md": "from the file name",
    "backlog/tasks/back-17 - Sync-status-in-prompt.md": "not valid YAML",
    "backlog/tasks/notes.md": "the file is skipped",
}
"""Every messy file of the fixture, and words `revetly check` must say about it."""


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Engine]:
    base = tmp_path_factory.mktemp("tally")
    repo = build_fixture_repo(BACKLOG_MD, base / "tally")
    Engine.init(base / "inst", source=("backlog-md", str(repo)))
    engine = Engine.open(base / "inst")
    engine.sync()
    return repo, engine


def art(engine: Engine, artifact_id: str) -> dict[str, Any]:
    return engine.get_artifact(artifact_id)


def test_tasks_keep_their_ids_with_the_declared_prefix(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    a = art(engine, "BACK-1")
    assert a["title"] == "Start and stop a timer" and a["status"] == "done"
    assert a["owner"] == "dana"


def test_a_zero_padded_sub_task_keeps_its_spelling_and_resolves_unpadded(
    tally: tuple[Path, Engine],
) -> None:
    _, engine = tally
    a = art(engine, "BACK-7.2")
    assert a["artifact_id"] == "BACK-7.02" and a["parent"] == "BACK-7"


def test_an_old_prefix_is_read_through_the_declared_alias(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    assert art(engine, "BACK-15")["title"] == "Config file for week start and idle minutes"


def test_acceptance_criteria_come_from_the_markers(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    assert art(engine, "BACK-3")["acceptance_criteria"] == [
        "Hours are grouped by activity and summed per day",
        "The first day of the week follows the week_start setting",
        "A running timer counts up to now and is marked as running",
    ]


def test_a_quoted_marker_adds_no_criterion(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    assert len(art(engine, "BACK-11")["acceptance_criteria"]) == 2


def test_statuses_follow_the_table_and_the_folders(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    assert art(engine, "BACK-3")["status"] == "in-progress"
    assert art(engine, "BACK-5")["status"] == "ready"
    assert art(engine, "DRAFT-1")["status"] == "draft"
    assert art(engine, "BACK-26")["status"] == "discarded"
    assert art(engine, "BACK-23")["status"] == "done"


def test_decisions_docs_and_milestones_become_notes_and_groupings(
    tally: tuple[Path, Engine],
) -> None:
    _, engine = tally
    assert art(engine, "DECISION-4")["artifact_type"] == "decision"
    assert art(engine, "DOC-2")["artifact_type"] == "reference"
    assert art(engine, "M-1")["artifact_type"] == "epic"


def test_declared_links_parent_dependencies_references_supersedes(
    tally: tuple[Path, Engine],
) -> None:
    _, engine = tally
    assert art(engine, "BACK-10")["declared_links"]["depends_on"] == ["BACK-11", "BACK-9"]
    assert art(engine, "BACK-6")["declared_links"]["references"] == ["DECISION-2", "DOC-2"]
    assert art(engine, "DECISION-4")["declared_links"]["supersedes"] == ["DECISION-3"]
    assert art(engine, "BACK-3")["parent"] == "M-0"


def test_branch_walks_milestone_task_and_sub_tasks(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    tree = engine.get_artifact("M-1", depth="declared")["tree"]
    children = {c["artifact_id"]: c for c in tree["children"]}
    assert {"BACK-6", "BACK-7", "BACK-8"} <= set(children)
    assert [c["artifact_id"] for c in children["BACK-7"]["children"]] == ["BACK-7.01",
                                                                         "BACK-7.02"]


def test_search_finds_the_task_and_the_decision(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    ids = [a["artifact_id"] for a in engine.search_context("merge conflicting edits per field")
           ["artifacts"]]
    assert set(ids[:2]) == {"DECISION-4", "BACK-7"}  # their order is BM25's call


def test_commit_messages_name_ids_every_way_teams_write_them(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    by_subject: dict[str, set[str]] = {}
    from revetly_core.store.db import Store

    store = Store(engine.paths.db, readonly=True)
    try:
        for title, dst in store.conn.execute(
            "SELECT a.title, l.dst FROM links l JOIN artifacts a ON a.id=l.src "
            "WHERE a.type='commit' AND l.invalid_at IS NULL"):
            by_subject.setdefault(title, set()).add(dst)
    finally:
        store.close()
    assert by_subject["Start and stop timers (task-1)"] == {"BACK-1"}
    assert by_subject["TASK 1 stop with no running timer exits 1"] == {"BACK-1"}
    assert by_subject["back-22 release pipeline for linux, macos and windows"] == {"BACK-22"}
    assert by_subject["Report polish for BACK-12..14"] == {"BACK-12", "BACK-13", "BACK-14"}
    assert by_subject["BACK-7.2: tombstones for deleted entries"] == {"BACK-7.02"}


def test_check_names_every_messy_file_with_what_was_assumed(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    problems = engine.check()["problems"]
    named = {p["path"]: p["detail"] for p in problems}
    for path, words in MESSY.items():
        assert path in named, path
        assert words in named[path], (path, named[path])
    assert set(named) == set(MESSY)


def test_the_pass_never_writes_into_the_repository(tally: tuple[Path, Engine]) -> None:
    repo, _ = tally
    import pygit2

    r = pygit2.Repository(str(repo))
    assert r.status() == {}
    assert not (repo / ".revetly").exists()


def test_an_edit_re_reads_one_task(tmp_path: Path) -> None:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    Engine.init(tmp_path / "inst", source=("backlog-md", str(repo)))
    engine = Engine.open(tmp_path / "inst")
    engine.sync()
    path = repo / "backlog/tasks/back-5 - Idle-detection.md"
    path.write_text(path.read_text().replace("status: To Do", "status: In Progress"))
    result = engine.sync()
    source = next(s for s in result["sources"] if s["source"] == "backlog-md/tally")
    assert source["counts"]["read"] == 1 and source["counts"]["updated"] == 1
    assert engine.get_artifact("BACK-5")["status"] == "in-progress"


def test_a_removed_task_is_marked_deleted(tmp_path: Path) -> None:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    Engine.init(tmp_path / "inst", source=("backlog-md", str(repo)))
    engine = Engine.open(tmp_path / "inst")
    engine.sync()
    (repo / "backlog/tasks/back-5 - Idle-detection.md").unlink()
    engine.sync()
    from revetly_core.store.db import Store

    store = Store(engine.paths.db, readonly=True)
    try:
        gone = store.get("BACK-5")
        assert gone is not None and gone.deleted and gone.deleted_clock == "found"
        assert not store.get("BACK-6").deleted  # type: ignore[union-attr]
    finally:
        store.close()


def test_an_unreadable_source_degrades_the_pass_and_is_named_by_check(tmp_path: Path) -> None:
    from revetly_core.instance.scaffold import default_config_text

    from tests.core.gitrepo import Instance

    text = default_config_text("acme", []) + (
        '\n[ids.families]\nTASK = "task"\nDRAFT = "task"\nDECISION = "decision"\n'
        'DOC = "reference"\nM = "epic"\n\n[[connectors.backlog-md]]\nname = "gone"\n'
        'path = "../nowhere"\n')
    inst = Instance(tmp_path / "acme", config_text=text)
    result = inst.sync()
    assert result["outcome"] == "degraded"
    problems = inst.check()["problems"]
    assert [p["code"] for p in problems] == ["source-unreadable"]
    assert problems[0]["path"] == "backlog-md/gone"


def test_binding_over_a_task_serves_its_decision_and_marks_the_superseded_one(
    tally: tuple[Path, Engine],
) -> None:
    _, engine = tally
    statements = engine.get_scope("binding", artifact_id="BACK-7")["statements"]
    ids = [s["artifact_id"] for s in statements]
    assert ids[0] == "DECISION-4"  # references decision-3, which decision-4 superseded
    assert statements[0]["bears_on"] == "BACK-7"
    old = next(s for s in statements if s["artifact_id"] == "DECISION-3")
    assert old["superseded_by"] == ["DECISION-4"]
    assert ids.index("DECISION-3") > ids.index("DECISION-4")
