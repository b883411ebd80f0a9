"""The azure-devops source's rules, one test each: WIQL, times, statuses, types, links, tags,
identities, revisions and continuation tokens."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from revetly_core.config import AzureDevOpsConnector as AzureDevOpsSettings
from revetly_core.connectors.azure_devops import (
    BadItem,
    ado_time,
    basic_auth,
    continuation_token,
    criteria_of,
    first_state_of_category,
    identity_name,
    own_word,
    parse_work_item,
    plain_text,
    relation_links,
    revision_entry,
    states_categories,
    states_of_cursor,
    status_of,
    tags_of,
    to_seconds,
    web_url,
    wiql_literal,
    wiql_query,
    work_item_id_of_url,
)

SETTINGS = AzureDevOpsSettings(name="web", organization="fabrikam", project="Fabrikam Web",
                               prefix="ADO", types={"story": ["User Story"], "bug": ["Bug"]})
AGILE = {"User Story": {"New": "Proposed", "Active": "InProgress", "Resolved": "Resolved",
                        "Closed": "Completed", "Removed": "Removed"}}
ITEM_URL = "https://dev.azure.com/fabrikam/_apis/wit/workItems/"


def _item(**fields: Any) -> dict[str, Any]:
    base = {"System.Title": "Sign in", "System.WorkItemType": "User Story",
            "System.State": "Active", "System.ChangedDate": "2024-03-01T09:00:00.25Z"}
    return {"id": 7, "rev": 3, "fields": {**base, **fields}}


def test_the_token_is_basic_auth_with_an_empty_user() -> None:
    value = basic_auth("pat123")
    assert value.startswith("Basic ")
    assert base64.b64decode(value.removeprefix("Basic ")) == b":pat123"


def test_a_wiql_literal_doubles_its_quotes() -> None:
    assert wiql_literal("O'Brien\\Team") == "'O''Brien\\Team'"


def test_the_full_query_lists_the_project_in_change_order() -> None:
    q = wiql_query(None, None)
    assert "[System.TeamProject] = @project" in q and "ChangedDate] >=" not in q
    assert q.endswith("ORDER BY [System.ChangedDate] ASC, [System.Id] ASC")


def test_an_incremental_query_asks_since_the_cursor_under_the_area() -> None:
    q = wiql_query("2024-03-01T09:00:00.250Z", "Fabrikam Web\\App")
    assert "[System.ChangedDate] >= '2024-03-01T09:00:00.250Z'" in q
    assert "[System.AreaPath] UNDER 'Fabrikam Web\\App'" in q


def test_the_ids_read_at_the_cursors_instant_are_left_out_by_id() -> None:
    q = wiql_query("2024-03-01T09:00:00.250Z", None, [9, 4])
    assert ("([System.ChangedDate] > '2024-03-01T09:00:00.250Z' OR ([System.ChangedDate] = "
            "'2024-03-01T09:00:00.250Z' AND [System.Id] NOT IN (4, 9)))") in q
    assert "] >= '" in wiql_query("2024-03-01T09:00:00.250Z", None, list(range(1, 1002)))


def test_times_read_as_utc_with_milliseconds_so_they_compare_as_text() -> None:
    assert ado_time("2024-03-01T09:00:00.25Z") == "2024-03-01T09:00:00.250Z"
    assert ado_time("2024-03-01T10:00:00+01:00") == "2024-03-01T09:00:00.000Z"
    assert ado_time("2024-03-01T09:00:00.1234567Z") == "2024-03-01T09:00:00.123Z"
    assert ado_time("yesterday") is None and ado_time(5) is None
    assert to_seconds("2024-03-01T09:00:00.250Z") == "2024-03-01T09:00:00Z"


def test_a_state_category_gives_the_status() -> None:
    states = AGILE["User Story"]
    assert [status_of(s, states) for s in ("New", "Active", "Resolved", "Closed", "Removed")] == [
        "ready", "in-progress", "done", "done", "discarded"]


def test_a_state_the_type_does_not_list_reads_ready() -> None:
    assert status_of("Blocked", AGILE["User Story"]) == "ready"
    assert status_of("Active", {}) == "ready"


def test_an_unmapped_work_item_type_keeps_its_own_name_as_its_kind() -> None:
    assert own_word("User Story") == "user-story"
    assert own_word("Test  Plan") == "test-plan"


def test_tags_split_on_semicolons() -> None:
    assert tags_of("ux; needs design ;;") == ["ux", "needs design"]
    assert tags_of(None) == []
    with pytest.raises(BadItem):
        tags_of(["ux"])


def test_an_identity_is_named_by_its_unique_name_else_display_name() -> None:
    assert identity_name({"displayName": "Ana Lee", "uniqueName": "ana@x"}) == "ana@x"
    assert identity_name({"displayName": "Ana Lee"}) == "Ana Lee"
    assert identity_name("Ana Lee <ana@x>") == "Ana Lee <ana@x>"
    assert identity_name(None) is None and identity_name({}) is None


def test_html_fields_read_as_plain_text() -> None:
    assert plain_text("<div>As a user</div><div>I sign in &amp; out<br/>fast</div>") == \
        "As a user\nI sign in & out\nfast"


def test_a_relation_url_names_a_work_item() -> None:
    assert work_item_id_of_url(ITEM_URL + "297") == 297
    assert work_item_id_of_url("https://dev.azure.com/fabrikam/_apis/git/repositories/x") is None
    assert work_item_id_of_url(None) is None


def test_relations_are_parent_children_related_and_predecessors() -> None:
    rels = [{"rel": "System.LinkTypes.Hierarchy-Reverse", "url": ITEM_URL + "1"},
            {"rel": "System.LinkTypes.Hierarchy-Forward", "url": ITEM_URL + "9"},
            {"rel": "System.LinkTypes.Related", "url": ITEM_URL + "4"},
            {"rel": "System.LinkTypes.Related", "url": ITEM_URL + "4"},
            {"rel": "System.LinkTypes.Dependency-Reverse", "url": ITEM_URL + "5"},
            {"rel": "AttachedFile", "url": "https://dev.azure.com/fabrikam/_apis/wit/attachments/a"},
            {"rel": "System.LinkTypes.Related", "url": ITEM_URL + "7"}]
    assert relation_links(rels, 7) == {"parent": [1], "children": [9], "related": [4],
                                       "predecessors": [5]}
    with pytest.raises(BadItem):
        relation_links("x", 7)


def test_a_work_item_parses_with_its_links_status_and_area() -> None:
    raw = _item(**{"System.AreaPath": "Fabrikam Web\\App", "System.Tags": "ux",
                   "System.Description": "<p>Sign in with SSO.</p>",
                   "System.AssignedTo": {"displayName": "Ana", "uniqueName": "ana@x"}})
    raw["relations"] = [{"rel": "System.LinkTypes.Hierarchy-Reverse", "url": ITEM_URL + "1"},
                        {"rel": "System.LinkTypes.Related", "url": ITEM_URL + "4"}]
    art = parse_work_item(raw, settings=SETTINGS, source_id="azure-devops/web", project="p",
                          categories=AGILE)
    assert (art.id, art.type, art.status, art.parent, art.owner) == (
        "ADO-7", "story", "in-progress", "ADO-1", "ana@x")
    assert art.body == "Sign in with SSO."
    assert art.metadata["declared"] == {"parent": "ADO-1", "related_ids": ["ADO-4"]}
    assert art.metadata["area_path"] == "Fabrikam Web\\App"
    assert art.metadata["state_category"] == "InProgress" and art.metadata["labels"] == ["ux"]
    assert art.source_updated_at == "2024-03-01T09:00:00Z"
    assert art.source_uri == "https://dev.azure.com/fabrikam/Fabrikam%20Web/_workitems/edit/7"


def test_an_unmapped_type_is_outside_the_backlog_with_why() -> None:
    art = parse_work_item(_item(**{"System.WorkItemType": "Test Plan"}), settings=SETTINGS,
                          source_id="s", project="p", categories={})
    assert art.type == "test-plan" and art.metadata["untyped_why"] == "unmapped"
    assert art.metadata["native_type"] == "Test Plan"


@pytest.mark.parametrize(("change", "word"), [
    ({"System.Title": None}, "System.Title"), ({"System.Title": "  "}, "System.Title"),
    ({"System.WorkItemType": 3}, "System.WorkItemType"),
    ({"System.State": None}, "System.State"),
    ({"System.ChangedDate": "soon"}, "System.ChangedDate"),
    ({"System.Description": "x" * 2_000_001}, "byte limit"),
])
def test_a_broken_work_item_is_refused_naming_the_field(change: dict[str, Any],
                                                         word: str) -> None:
    with pytest.raises(BadItem, match=word.replace(".", r"\.")):
        parse_work_item(_item(**change), settings=SETTINGS, source_id="s", project="p",
                        categories=AGILE)


def test_the_web_address_names_the_organization_project_and_id() -> None:
    assert web_url(SETTINGS, 12) == \
        "https://dev.azure.com/fabrikam/Fabrikam%20Web/_workitems/edit/12"


def test_a_revision_with_a_comment_is_a_commented_change_note() -> None:
    number, entry = revision_entry({"id": 7, "rev": 4, "fields": {
        "System.ChangedDate": "2024-03-01T09:00:00Z", "System.ChangedBy": "Ana <ana@x>",
        "System.History": "<div>Blocked on the IdP.</div><div>More</div>"}})
    assert number == 7
    assert (entry.artifact_id, entry.revision, entry.change, entry.summary, entry.author) == (
        "workitems/7", "rev/4", "commented", "Blocked on the IdP.", "Ana <ana@x>")


def test_a_revision_without_a_comment_names_its_state() -> None:
    _, first = revision_entry({"id": 7, "rev": 1, "fields": {
        "System.ChangedDate": "2024-03-01T09:00:00Z", "System.State": "New"}})
    _, later = revision_entry({"id": 7, "rev": 2, "fields": {
        "System.ChangedDate": "2024-03-01T09:00:00Z", "System.State": "Active"}})
    assert (first.change, first.summary, later.change, later.summary) == (
        "created", "state New", "revised", "state Active")
    with pytest.raises(BadItem):
        revision_entry({"id": 7, "fields": {}})


def test_a_states_answer_maps_each_state_to_its_category() -> None:
    data = {"count": 2, "value": [{"name": "New", "color": "b2b2b2", "category": "Proposed"},
                                  {"name": "Active", "color": "007acc", "category": "InProgress"}]}
    assert states_categories(data) == {"New": "Proposed", "Active": "InProgress"}
    with pytest.raises(BadItem):
        states_categories([])


def test_the_continuation_token_comes_from_the_header_else_the_body() -> None:
    assert continuation_token({"x-ms-continuationtoken": "h1"}, {"continuationToken": "b1"}) == "h1"
    assert continuation_token({}, {"continuationToken": "b1"}) == "b1"
    assert continuation_token({}, {"values": []}) is None


def test_acceptance_criteria_are_the_list_items_or_lines_of_the_field() -> None:
    assert criteria_of("<ul><li>Edits sync</li><li class='x'>Conflicts show</li></ul>") == [
        "Edits sync", "Conflicts show"]
    assert criteria_of("<div>1. One</div><div>- Two</div><br>") == ["One", "Two"]
    assert criteria_of("") == []


def test_each_category_names_the_types_first_state_in_it() -> None:
    states = {"New": "Proposed", "Committed": "InProgress", "Active": "InProgress",
              "Done": "Completed"}
    assert first_state_of_category(states) == {"Proposed": "New", "InProgress": "Committed",
                                               "Completed": "Done"}


def test_the_cursor_keeps_each_types_states_in_their_order() -> None:
    kept = {"Feature": [["New", "Proposed"], ["Committed", "InProgress"], ["Active", "InProgress"]]}
    assert list(states_of_cursor(kept)["Feature"]) == ["New", "Committed", "Active"]
    assert states_of_cursor(None) == {} and states_of_cursor({"Bug": "x"}) == {}
