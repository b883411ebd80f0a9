"""The todoist source's rules, one test each: status, project match, windows, numbering,
task and comment parsing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from revetly_core.config import TodoistConnector as TodoistSettings
from revetly_core.connectors.base import KnownArtifact
from revetly_core.connectors.todoist import (
    BadItem,
    completed_windows,
    known_numbers,
    note_entry,
    number_new_tasks,
    parse_task,
    project_matches,
    section_names,
    task_labels,
    task_status,
)

SETTINGS = TodoistSettings(name="app", project="App", prefix="TD",
                           types={"story": ["story"], "bug": ["bug"]})


def _task(**fields: Any) -> dict[str, Any]:
    return {"id": "6Xa", "project_id": "P1", "content": "Fix the sync", "description": "",
            "checked": False, "labels": [], "added_at": "2026-01-02T03:04:05.000000Z",
            "updated_at": "2026-01-03T03:04:05.000000Z", **fields}


def _parse(raw: dict[str, Any], numbers: dict[str, int] | None = None) -> Any:
    return parse_task(raw, settings=SETTINGS, source_id="todoist/app", project="default",
                      numbers=numbers or {"6Xa": 1, "6Xp": 2}, sections={"S1": "Doing"})


def test_a_checked_task_is_done_and_any_other_ready() -> None:
    assert (task_status(True), task_status(False)) == ("done", "ready")


def test_a_project_matches_by_id_or_case_folded_name_never_when_deleted() -> None:
    project = {"id": "P1", "name": "Mobile App", "is_deleted": False}
    assert project_matches(project, "P1") and project_matches(project, "mobile app")
    assert not project_matches(project, "Mobile")
    assert not project_matches({**project, "is_deleted": True}, "P1")


def test_completed_windows_cover_the_span_in_at_most_89_days_each() -> None:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    windows = completed_windows(start, start + dt.timedelta(days=200))
    assert windows == [("2026-01-01T00:00:00Z", "2026-03-31T00:00:00Z"),
                       ("2026-03-31T00:00:00Z", "2026-06-28T00:00:00Z"),
                       ("2026-06-28T00:00:00Z", "2026-07-20T00:00:00Z")]


def test_an_empty_span_still_asks_one_window() -> None:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert completed_windows(start, start) == [("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")]


def test_known_numbers_come_from_the_stored_paths() -> None:
    known = {"TD-3": KnownArtifact("TD-3", "tasks/6Xa", "b", False, None, None),
             "TD-9": KnownArtifact("TD-9", "tasks/6Xb", "b", True, None, None),
             "GH-1": KnownArtifact("GH-1", "issues/1", "b", False, None, None)}
    assert known_numbers(known, "TD") == {"6Xa": 3, "6Xb": 9}


def test_new_tasks_are_numbered_after_the_highest_in_the_order_they_were_added() -> None:
    numbers = {"6Xa": 3}
    number_new_tasks(numbers, [{"id": "6Xz", "added_at": "2026-02-01"},
                               {"id": "6Xa", "added_at": "2026-01-01"},
                               {"id": "6Xy", "added_at": "2026-01-15"}])
    assert numbers == {"6Xa": 3, "6Xy": 4, "6Xz": 5}


def test_labels_are_names() -> None:
    assert task_labels({"labels": ["a", "b"]}) == ["a", "b"]
    with pytest.raises(BadItem):
        task_labels({"labels": [1]})


def test_a_task_is_typed_by_its_labels_and_keeps_its_section() -> None:
    art = _parse(_task(labels=["Bug"], section_id="S1"))
    assert (art.id, art.type, art.status, art.metadata["section"]) == ("TD-1", "bug", "ready",
                                                                        "Doing")
    assert art.metadata["typed_by"] == "label:Bug" and art.source_path == "tasks/6Xa"


def test_a_task_no_label_maps_is_an_item_outside_the_backlog() -> None:
    art = _parse(_task(labels=["someday"]))
    assert (art.type, art.metadata["untyped_why"]) == ("item", "untyped")


def test_a_parent_task_numbered_in_the_source_is_a_declared_parent() -> None:
    art = _parse(_task(parent_id="6Xp"))
    assert art.parent == "TD-2" and art.metadata["declared"] == {"parent": "TD-2"}
    orphan = _parse(_task(parent_id="6Xq"))
    assert orphan.parent is None and orphan.metadata["parent_task_id"] == "6Xq"


def test_the_update_time_falls_back_to_completed_then_added() -> None:
    raw = _task(updated_at=None, completed_at="2026-01-04T00:00:00.000000Z", checked=True)
    assert _parse(raw).source_updated_at == "2026-01-04T00:00:00Z"
    assert _parse(_task(updated_at=None)).source_updated_at == "2026-01-02T03:04:05Z"


@pytest.mark.parametrize(("change", "words"), [
    ({"content": ""}, "'content' is empty"), ({"content": 3}, "'content'"),
    ({"checked": "yes"}, "'checked'"), ({"section_id": 7}, "'section_id'"),
    ({"added_at": None, "updated_at": None}, "not times"), ({"id": "6Xnot"}, "'id'"),
])
def test_a_task_that_breaks_a_shape_is_refused_naming_the_field(change: dict[str, Any],
                                                               words: str) -> None:
    with pytest.raises(BadItem) as exc:
        _parse(_task(**change))
    assert words in str(exc.value)


def test_a_comment_is_a_history_entry_of_its_task() -> None:
    task_id, entry = note_entry({"id": "N1", "item_id": "6Xa", "posted_uid": "42",
                                 "posted_at": "2026-01-05T00:00:00.000000Z",
                                 "content": "\n  First line\nsecond"})
    assert task_id == "6Xa"
    assert (entry.artifact_id, entry.revision, entry.change, entry.author, entry.summary) == (
        "tasks/6Xa", "comment/N1", "commented", "42", "First line")
    with pytest.raises(BadItem):
        note_entry({"id": "N2", "item_id": "6Xa"})


def test_section_names_follow_the_sync_renamed_deleted_or_moved() -> None:
    held = {"S1": "Doing", "S2": "Review", "S3": "Old"}
    changed = [{"id": "S1", "name": "In progress", "project_id": "P1", "is_deleted": False},
               {"id": "S2", "name": "Review", "project_id": "P1", "is_deleted": True},
               {"id": "S3", "name": "Old", "project_id": "P2", "is_deleted": False},
               {"id": "S4", "name": "New", "project_id": "P1", "is_deleted": False}]
    assert section_names(changed, "P1", held) == {"S1": "In progress", "S4": "New"}
