"""Backlog.md write-back, the format rules one by one (writeback/backlog_md.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import BacklogMdConnector
from revetly_core.connectors.backlog_md_markers import acceptance_criteria
from revetly_core.markdown.frontmatter import split_frontmatter
from revetly_core.refusal import Refusal
from revetly_core.writeback.backlog_md import (
    BacklogMdTarget,
    backlog_md_time,
    contained_path,
    file_name,
    find_task_files,
    home_of,
    next_number,
    set_front_value,
    status_word,
    task_number,
    task_text,
    with_note,
    written_id,
    yaml_text,
)

SETTINGS = BacklogMdConnector(name="tally", path="../tally", task_prefix="BACK",
                              aliases=["TASK"])
FILE = ("---\nid: BACK-5\ntitle: >-\n  Detect an idle\n  computer\nstatus: To Do\n"
        "labels: [cli]\n---\n\n## Description\n\nText stays.\n")


def test_a_status_takes_the_sources_own_word_first() -> None:
    own = BacklogMdConnector(name="t", path=".", statuses={"Doing": "in-progress"})
    assert status_word("in-progress", own) == "Doing"
    assert status_word("in-progress", SETTINGS) == "In Progress"
    assert status_word("ready", SETTINGS) == "To Do" and status_word("done", SETTINGS) == "Done"


def test_a_status_with_no_word_has_none() -> None:
    assert status_word("draft", SETTINGS) is None


def test_times_are_written_as_backlog_md_writes_them() -> None:
    assert backlog_md_time(dt.datetime(2026, 3, 4, 5, 6, 7, tzinfo=dt.UTC)) == "2026-03-04 05:06"


def test_a_new_id_is_the_family_upper_cased() -> None:
    assert written_id("back", 27) == "BACK-27"


def test_a_file_name_is_the_id_lower_cased_and_the_titles_words() -> None:
    assert file_name("BACK-27", "Export: CSV / per week?") == "back-27 - Export-CSV-per-week.md"
    assert file_name("BACK-28", "???") == "back-28 - task.md"


def test_a_file_names_number_counts_only_for_the_task_families() -> None:
    assert task_number("back-12.3 - X.md", {"BACK", "TASK"}) == 12
    assert task_number("task-15 - Y.md", {"BACK", "TASK"}) == 15
    assert task_number("draft-3 - Z.md", {"BACK"}) is None


def test_the_next_number_is_past_every_folders_highest(tmp_path: Path) -> None:
    for rel in ("tasks/back-3 - A.md", "completed/back-9 - B.md", "archive/tasks/task-11 - C.md",
                "drafts/draft-40 - D.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert next_number(tmp_path, {"BACK", "TASK"}) == 12


def test_a_task_file_moves_to_the_folder_its_status_belongs_in() -> None:
    assert home_of("tasks/back-5 - A.md", "discarded") == "archive/tasks/back-5 - A.md"
    assert home_of("completed/back-5 - A.md", "done") == "completed/back-5 - A.md"
    assert home_of("completed/back-5 - A.md", "in-progress") == "tasks/back-5 - A.md"
    assert home_of("archive/tasks/back-5 - A.md", "ready") == "tasks/back-5 - A.md"
    assert home_of("tasks/back-5 - A.md", "done") == "tasks/back-5 - A.md"


def test_a_task_file_is_found_by_any_spelling_of_its_id(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "back-7.02 - Tombstones.md").write_text("x")
    (tmp_path / "tasks" / "back-8 - A.md").write_text("x")
    (tmp_path / "tasks" / "back-8 - A copy.md").write_text("x")
    assert find_task_files(tmp_path, "BACK-7.2", None) == ["tasks/back-7.02 - Tombstones.md"]
    assert len(find_task_files(tmp_path, "BACK-8", "back-8")) == 2
    assert find_task_files(tmp_path, "BACK-9", "back-9") == []


def test_setting_a_front_value_keeps_every_other_byte() -> None:
    out = set_front_value(FILE, "status", "In Progress")
    assert out == FILE.replace("status: To Do", "status: In Progress")


def test_a_value_over_several_lines_is_replaced_whole() -> None:
    out = set_front_value(FILE, "title", "Short")
    assert split_frontmatter(out)[0]["title"] == "Short"
    assert "computer" not in out and out.endswith("Text stays.\n")


def test_a_missing_front_key_is_added_before_the_fence() -> None:
    out = set_front_value(FILE, "updated_date", "'2026-01-02 03:04'")
    front, body = split_frontmatter(out)
    assert front["updated_date"] == "2026-01-02 03:04" and front["labels"] == ["cli"]
    assert body.strip() == "## Description\n\nText stays."


@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40))
def test_a_text_value_reads_back_as_itself(value: str) -> None:
    front, _ = split_frontmatter(f"---\nk: {yaml_text(value)}\n---\n")
    assert front["k"] == value


def test_a_new_task_reads_back_with_its_criteria() -> None:
    text = task_text("BACK-27", "Weekly export", "To Do", "2026-01-02 03:04",
                     "Export the week.", ["One row per entry", "Totals  at the end"], "BACK-3")
    front, body = split_frontmatter(text)
    assert front["id"] == "BACK-27" and front["parent_task_id"] == "BACK-3"
    assert front["assignee"] == [] and front["created_date"] == "2026-01-02 03:04"
    assert "<!-- SECTION:DESCRIPTION:BEGIN -->\nExport the week.\n" in body
    items, from_markers = acceptance_criteria(body)
    assert from_markers and [(c.number, c.text) for c in items] == [
        (1, "One row per entry"), (2, "Totals at the end")]


def test_a_note_goes_inside_the_notes_section() -> None:
    text = "x\n\n## Implementation Notes\n\n<!-- SECTION:NOTES:BEGIN -->\nmine\n" \
           "<!-- SECTION:NOTES:END -->\n"
    out = with_note(text, "delivered\n<!-- revetly:delivery DEL-1 -->\n")
    assert out.endswith("mine\n\ndelivered\n<!-- revetly:delivery DEL-1 -->\n"
                        "<!-- SECTION:NOTES:END -->\n")


def test_a_file_without_notes_gets_a_notes_section() -> None:
    out = with_note("x\n", "delivered\n")
    assert out == ("x\n\n## Implementation Notes\n\n<!-- SECTION:NOTES:BEGIN -->\ndelivered\n"
                   "<!-- SECTION:NOTES:END -->\n")


def test_a_write_through_a_link_out_of_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "repo" / "backlog"
    project.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (project / "tasks").symlink_to(tmp_path / "elsewhere")
    target = BacklogMdTarget(SETTINGS, "backlog-md/tally", tmp_path / "repo", "backlog", "p")
    with pytest.raises(Refusal) as exc:
        contained_path(target, "tasks/back-1 - A.md")
    assert exc.value.code == "outside-instance"
    with pytest.raises(Refusal):
        contained_path(target, "../outside.md")
