"""The declared status table and the folder rules of Backlog.md sources."""

from __future__ import annotations

from revetly_core.config import BacklogMdConnector
from revetly_core.connectors.backlog_md_status import (
    StatusReading,
    decision_status,
    folder_disagrees,
    folder_kind,
    work_item_status,
)

TABLE = BacklogMdConnector(name="t", path=".", statuses={"Blocked": "parked"}).status_table()


def test_default_table_maps_the_three_backlog_md_statuses() -> None:
    assert work_item_status("To Do", "task", TABLE) == StatusReading("ready")
    assert work_item_status("in progress", "task", TABLE) == StatusReading("in-progress")
    assert work_item_status("Done", "task", TABLE) == StatusReading("done")


def test_a_declared_entry_extends_the_defaults() -> None:
    assert work_item_status("Blocked", "task", TABLE) == StatusReading("parked")


def test_an_unknown_status_is_read_as_ready_and_said() -> None:
    reading = work_item_status("Waiting", "task", TABLE)
    assert reading.status == "ready" and reading.assumed and "Waiting" in reading.assumed


def test_drafts_are_drafts_and_archived_tasks_discarded() -> None:
    assert work_item_status("To Do", "draft", TABLE) == StatusReading("draft")
    assert work_item_status("In Progress", "archived-task", TABLE) == StatusReading("discarded")


def test_an_unfinished_task_in_completed_disagrees_with_its_folder() -> None:
    reading = work_item_status("In Progress", "completed", TABLE)
    assert reading.status == "done" and reading.assumed and "disagrees" in reading.assumed
    assert folder_disagrees("completed", "in-progress")
    assert not folder_disagrees("archived-task", "done")


def test_folder_kind_reads_the_longest_folder() -> None:
    assert folder_kind("archive/tasks/back-1 - x.md") == "archived-task"
    assert folder_kind("tasks/back-1 - x.md") == "task"
    assert folder_kind("docs/sub/doc-1 - x.md") == "doc"
    assert folder_kind("config.yml") is None


def test_decision_status_keeps_the_four_and_assumes_the_rest() -> None:
    assert decision_status("Accepted") == StatusReading("accepted")
    assert decision_status("deprecated").status == "superseded"
    assert decision_status("under discussion").status == "proposed"
    assert decision_status(None).assumed == "no status: read as proposed"
