"""The Azure DevOps write adapter's rules, one test each: the category a status needs, the
state it moves to, the patch it sends, and what it refuses before any request."""

from __future__ import annotations

from typing import Any

from revetly_core.config import AzureDevOpsConnector as AzureDevOpsSettings
from revetly_core.writeback.azure_devops import (
    AzureDevOpsWriter,
    category_for,
    known_category_states,
    state_for,
    state_patch,
)
from revetly_core.writeback.protocol import RemoteItem

SETTINGS = AzureDevOpsSettings(name="web", organization="fabrikam", project="Fabrikam Web",
                               prefix="ADO")
AGILE = {"Proposed": "New", "InProgress": "Active", "Resolved": "Resolved",
         "Completed": "Closed", "Removed": "Removed"}


def _item(native_type: str = "User Story", **meta: object) -> RemoteItem:
    return RemoteItem("ADO-7", "azure-devops/web", "7", "story", native_type, "ready", meta)


def test_each_status_has_its_state_category() -> None:
    assert [category_for(s) for s in ("in-progress", "ready", "done", "discarded")] == [
        "InProgress", "Proposed", "Completed", "Removed"]
    assert category_for("parked") is None and category_for("draft") is None


def test_a_status_moves_to_its_categorys_first_state() -> None:
    assert state_for("in-progress", AGILE) == "Active"
    assert state_for("done", AGILE) == "Closed"
    assert state_for("discarded", {"Proposed": "To Do"}) is None


def test_the_patch_sets_the_state_field() -> None:
    assert state_patch("Active") == [{"op": "add", "path": "/fields/System.State",
                                      "value": "Active"}]


def test_the_category_table_comes_from_what_the_read_stored() -> None:
    assert known_category_states(_item(category_states=AGILE)) == AGILE
    assert known_category_states(_item()) is None
    assert known_category_states(_item(category_states={})) is None


def test_a_type_without_the_category_is_refused_by_name() -> None:
    writer = AzureDevOpsWriter(SETTINGS, environ={})
    refusal = writer.refuse_status(_item("Test Plan", category_states={"Proposed": "Design"}),
                                   "in-progress")
    assert refusal is not None and refusal.code == "tracker-cannot-hold"
    assert "'Test Plan'" in refusal.detail and "InProgress" in refusal.detail
    assert writer.requests == 0


def test_a_status_no_work_item_holds_is_refused() -> None:
    writer = AzureDevOpsWriter(SETTINGS, environ={})
    refusal = writer.refuse_status(_item(category_states=AGILE), "parked")
    assert refusal is not None and "parked" in refusal.detail


def test_an_item_whose_type_has_the_category_is_not_refused() -> None:
    writer = AzureDevOpsWriter(SETTINGS, environ={})
    assert writer.refuse_status(_item(category_states=AGILE), "done") is None
    assert writer.requests == 0


def _states_transport(states: list[tuple[str, str]] | None) -> Any:
    import httpx

    def answer(request: httpx.Request) -> httpx.Response:
        if states is None:
            return httpx.Response(503, json={"message": "busy"})
        assert request.url.raw_path.startswith(
            b"/fabrikam/Fabrikam%20Web/_apis/wit/workitemtypes/Test%20Plan/states")
        return httpx.Response(200, json={"count": len(states), "value": [
            {"name": n, "color": "b2b2b2", "category": c} for n, c in states]})
    return httpx.MockTransport(answer)


def test_an_item_read_without_its_types_states_asks_them_before_refusing() -> None:
    writer = AzureDevOpsWriter(SETTINGS, environ={},
                               transport=_states_transport([("Design", "Proposed")]))
    refusal = writer.refuse_status(_item("Test Plan"), "in-progress")
    assert refusal is not None and "'Test Plan'" in refusal.detail and writer.requests == 1


def test_states_that_cannot_be_asked_leave_the_refusal_to_the_write() -> None:
    writer = AzureDevOpsWriter(SETTINGS, environ={}, transport=_states_transport(None))
    writer.http().retries = 0
    writer.http().max_wait_seconds = 0
    assert writer.refuse_status(_item("Test Plan"), "in-progress") is None
