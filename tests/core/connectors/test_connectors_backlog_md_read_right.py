"""Backlog.md read right on real repositories: folder READMEs, shared ids, legacy notes,
free-text statuses; each rule by its own function."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.connectors.backlog_md import (
    assign_ids,
    base_id,
    bold_fields,
    copy_id,
    is_folder_readme,
    legacy_file_id,
)
from revetly_core.connectors.backlog_md_status import guess_status
from revetly_core.instance.scaffold_sources import legacy_families_in
from revetly_core.reads.check import problem_severity, severity_counts

from revetly_core import Engine
from tests.fixtures.fixture_repo import BACKLOG_MD, build_fixture_repo


def test_a_folder_readme_is_not_an_item() -> None:
    assert is_folder_readme("README.md") and is_folder_readme("readme.md")
    assert not is_folder_readme("back-1 - Readme.md")


def test_a_legacy_file_name_reads_the_family_after_the_task_prefix() -> None:
    assert legacy_file_id("task-epic-11.108.7 - Update-tests.md", {"TASK"}, {"EPIC"}) == (
        "EPIC-11.108.7", "Update tests")
    assert legacy_file_id("task-epic-3.md", {"TASK"}, {"EPIC"}) == ("EPIC-3", "")
    assert legacy_file_id("task-epic-3 - X.md", {"TASK"}, set()) is None
    assert legacy_file_id("doc-epic-3 - X.md", {"TASK"}, {"EPIC"}) is None


def test_bold_key_lines_stand_for_frontmatter_fields() -> None:
    body = ("# Task 11.2: Do it\n\n**Status:** Completed\n**Parent:** task-epic-11\n"
            "**Dependencies:** task-epic-11.1 (done), task-epic-11.3\n**Owner:** x\n\n"
            "## Objective\n\n**Status:** not this one\n")
    assert bold_fields(body) == {"status": "Completed", "parent_task_id": "task-epic-11",
                                 "dependencies": ["task-epic-11.1", "task-epic-11.3"]}


def test_a_free_text_status_is_read_by_its_first_words() -> None:
    assert guess_status("✅ COMPLETED (2025-11-14)") == "done"
    assert guess_status("Not Started") == "ready"
    assert guess_status("In-Progress") == "in-progress"
    assert guess_status("Phase 1 of 3") is None


def test_a_second_file_with_one_id_is_served_under_a_folder_suffix() -> None:
    assert copy_id("BACK-1", "backlog/archive/tasks/back-1 - X.md", "backlog/", set()) == (
        "BACK-1~archived")
    assert copy_id("BACK-1", "backlog/archive/tasks/b.md", "backlog/", {"BACK-1~archived"}) == (
        "BACK-1~archived2")
    assert base_id("BACK-1~archived2") == "BACK-1"


def test_assign_ids_keeps_the_holder_and_serves_every_copy() -> None:
    live, old = "backlog/tasks/back-1 - A.md", "backlog/archive/tasks/back-1 - B.md"
    assert assign_ids({live: "BACK-1", old: "BACK-1"}, {}, "backlog/", {}) == {
        live: "BACK-1", old: "BACK-1~archived"}
    # a file that already held the id keeps it when a copy appears in a better folder
    assert assign_ids({live: "BACK-1", old: "BACK-1"}, {old: "BACK-1"}, "backlog/", {}) == {
        old: "BACK-1", live: "BACK-1~tasks"}
    # padding and case are one id
    assert set(assign_ids({live: "BACK-01", old: "back-1"}, {}, "backlog/", {}).values()) == {
        "BACK-01", "back-1~archived"}


def test_severity_follows_the_source_then_the_code() -> None:
    assert problem_severity({"code": "assumed"}) == "note"
    assert problem_severity({"code": "bad-yaml"}) == "error"
    assert problem_severity({"code": "duplicate-id", "severity": "warning"}) == "warning"
    assert severity_counts([{"code": "assumed"}, {"code": "x"}]) == {
        "error": 1, "warning": 0, "note": 1}


def test_scaffold_finds_legacy_families_in_file_names(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "task-epic-11.2 - Old.md").write_text("# Old\n")
    (tmp_path / "tasks" / "task-3 - New.md").write_text("# New\n")
    assert legacy_families_in(tmp_path, "TASK") == ["EPIC"]


def _tally(tmp_path: Path) -> tuple[Path, Engine]:
    repo = build_fixture_repo(BACKLOG_MD, tmp_path / "tally")
    Engine.init(tmp_path / "inst", source=("backlog-md", str(repo)))
    engine = Engine.open(tmp_path / "inst")
    engine.sync()
    return repo, engine


def test_both_files_sharing_an_id_stay_searchable_and_addressable(tmp_path: Path) -> None:
    _, engine = _tally(tmp_path)
    copy = engine.get_artifact("BACK-12~tasks")
    assert copy["source_path"] == "backlog/tasks/back-12 - Export-CSV-copy.md"
    assert engine.get_artifact("BACK-12")["source_path"] != copy["source_path"]
    found = [a["artifact_id"] for a in engine.search_context("copy of the export")["artifacts"]]
    assert "BACK-12~tasks" in found
    named = [p for p in engine.check()["problems"] if p["code"] == "duplicate-id"]
    assert named and named[0]["severity"] == "warning" and "BACK-12~tasks" in named[0]["detail"]


def test_a_readme_legacy_note_and_a_shared_id_leave_check_at_warnings(tmp_path: Path) -> None:
    repo, engine = _tally(tmp_path)
    folder = repo / "backlog" / "tasks"
    (folder / "README.md").write_text("# Tasks\n\nHow we keep tasks.\n")
    (folder / "back-epic-2.1 - Old-plan.md").write_text(
        "# Old plan\n\n**Status:** ✅ Completed\n**Parent:** back-epic-2\n\nThe old words.\n")
    toml = engine.root / "revetly.toml"
    toml.write_text(toml.read_text().replace('task_prefix = "BACK"',
                                             'task_prefix = "BACK"\nlegacy_families = ["EPIC"]'))
    engine = Engine.open(engine.root)
    engine.sync()
    old = engine.get_artifact("EPIC-2.1")
    assert (old["title"], old["status"], old["parent"]) == ("Old plan", "done", "EPIC-2")
    result = engine.check()
    paths = {p["path"] for p in result["problems"]}
    assert "backlog/tasks/README.md" not in paths
    legacy = [p for p in result["problems"] if p["path"].endswith("Old-plan.md")]
    assert [p["severity"] for p in legacy] == ["note"]


def test_a_copy_takes_the_plain_id_back_when_its_twin_goes(tmp_path: Path) -> None:
    repo, engine = _tally(tmp_path)
    holder = engine.get_artifact("BACK-12")["source_path"]
    (repo / holder).unlink()
    engine.sync()
    assert engine.get_artifact("BACK-12")["source_path"] == (
        "backlog/tasks/back-12 - Export-CSV-copy.md")
    from revetly_core.store.db import Store

    store = Store(engine.paths.db, readonly=True)
    try:
        gone = store.get("BACK-12~tasks")
        assert gone is not None and gone.deleted
    finally:
        store.close()
    assert not [p for p in engine.check()["problems"] if p["code"] == "duplicate-id"]


def test_a_new_copy_never_displaces_the_holder(tmp_path: Path) -> None:
    repo, engine = _tally(tmp_path)
    holder = engine.get_artifact("BACK-12")["source_path"]
    archived = repo / "backlog" / "archive" / "tasks" / "back-12 - Old-export.md"
    archived.write_text("---\nid: BACK-12\ntitle: Old export\nstatus: To Do\n---\n\nOld.\n")
    engine.sync()
    assert engine.get_artifact("BACK-12")["source_path"] == holder
    assert engine.get_artifact("BACK-12~archived")["title"] == "Old export"
    assert engine.get_artifact("BACK-12~tasks")["source_path"].endswith("Export-CSV-copy.md")


_FOLDERS = st.sampled_from(["tasks/", "completed/", "drafts/", "archive/tasks/"])


@given(st.lists(st.tuples(_FOLDERS, st.integers(1, 3), st.integers(0, 9)), max_size=12,
                unique_by=lambda t: (t[0], t[2])))
def test_assign_ids_serves_every_file_under_one_unique_id(
    files: list[tuple[str, int, int]],
) -> None:
    bases = {f"backlog/{folder}f{n}.md": f"BACK-{number}" for folder, number, n in files}
    served = assign_ids(bases, {}, "backlog/", {})
    assert set(served) == set(bases)
    assert len(set(served.values())) == len(served)
    for number in {b for b in bases.values()}:
        plain = [p for p, i in served.items() if i == number]
        assert len(plain) == 1
        assert all(base_id(served[p]) == number for p in bases if bases[p] == number)
