"""The rules of the GitHub Projects (v2) read, one test each (revetly_core.connectors.
github_projects)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import GitHubProjectsV2
from revetly_core.connectors.github_projects import (
    ItemsPage,
    changed_numbers,
    errors_stop,
    graphql_url,
    item_values,
    items_page,
    project_label,
    project_status,
    relist_instead,
    unmapped_option,
    values_fingerprint,
    with_project,
)
from revetly_core.connectors.tracker_http import TrackerStop
from revetly_core.model import Artifact

BOARD = GitHubProjectsV2(owner="acme", number=3,
                         statuses={"Todo": "ready", "In Progress": "in-progress"})
REPO = "acme/app"


def _node(number: int, values: dict[str, str], *, repo: str = REPO,
          kind: str = "Issue") -> dict[str, Any]:
    content: dict[str, Any] = {"__typename": kind}
    if kind == "Issue":
        content.update(number=number, repository={"nameWithOwner": repo})
    nodes: list[dict[str, Any]] = [{"__typename": "ProjectV2ItemFieldDateValue"}]
    nodes += [{"__typename": "ProjectV2ItemFieldSingleSelectValue", "name": option,
               "field": {"name": name}} for name, option in values.items()]
    return {"id": f"PVTI_{number}", "content": content, "fieldValues": {"nodes": nodes}}


def _answer(nodes: list[Any], *, has_next: bool = False, end: str | None = "Y3Vy") -> Any:
    return {"data": {"rateLimit": {"cost": 1, "remaining": 4999}, "repositoryOwner": {
        "projectV2": {"items": {"pageInfo": {"hasNextPage": has_next, "endCursor": end},
                                "nodes": nodes}}}}}


def _artifact() -> Artifact:
    return Artifact(id="GH-1", type="story", title="Offline sync", source="github/app",
                    project="default", body="", status="ready", metadata={"labels": []},
                    blob="b" * 40)


def test_graphql_answers_beside_the_public_rest_root() -> None:
    assert graphql_url("https://api.github.com") == "https://api.github.com/graphql"
    assert graphql_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/graphql"


def test_graphql_on_enterprise_server_is_api_graphql() -> None:
    assert graphql_url("https://ghe.example.com/api/v3") == "https://ghe.example.com/api/graphql"


def test_the_project_is_named_owner_projects_number() -> None:
    assert project_label(BOARD) == "acme/projects/3"


def test_a_rate_limited_error_is_resumable() -> None:
    stop = errors_stop([{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}])
    assert (stop.code, stop.resumable) == ("rate-limited", True)


def test_any_other_error_is_refused_with_the_scope_hint() -> None:
    stop = errors_stop([{"type": "INSUFFICIENT_SCOPES", "message": "needs read:project"}])
    assert (stop.code, stop.resumable) == ("refused", False)
    assert "INSUFFICIENT_SCOPES" in stop.detail and "read:project" in stop.detail


def test_an_item_keeps_only_its_single_select_values() -> None:
    assert item_values(_node(7, {"Status": "Todo", "Size": "M"}), REPO) == (
        7, {"Status": "Todo", "Size": "M"})


def test_an_item_that_is_not_an_issue_of_this_repository_is_none() -> None:
    assert item_values(_node(7, {}, repo="other/app"), REPO) is None
    assert item_values(_node(7, {}, kind="PullRequest"), REPO) is None
    assert item_values(_node(7, {}, kind="DraftIssue"), REPO) is None
    assert item_values({"id": "x", "content": None, "fieldValues": {"nodes": []}}, REPO) is None


def test_the_repository_matches_case_blind() -> None:
    assert item_values(_node(7, {}, repo="Acme/App"), REPO) == (7, {})


def test_an_issue_without_its_values_is_malformed() -> None:
    node = _node(7, {})
    del node["fieldValues"]
    with pytest.raises(TrackerStop) as exc:
        item_values(node, REPO)
    assert exc.value.code == "malformed" and "#7" in exc.value.detail


def test_a_page_gives_values_the_cursor_and_the_cost() -> None:
    page = items_page(_answer([_node(1, {"Status": "Todo"}), _node(2, {}, kind="DraftIssue")],
                              has_next=True), REPO)
    assert page == ItemsPage({1: {"Status": "Todo"}}, True, "Y3Vy", 1, 1)


def test_a_next_page_without_a_cursor_is_malformed() -> None:
    with pytest.raises(TrackerStop) as exc:
        items_page(_answer([], has_next=True, end=None), REPO)
    assert exc.value.code == "malformed"


def test_no_such_project_is_refused() -> None:
    with pytest.raises(TrackerStop) as exc:
        items_page({"data": {"repositoryOwner": None}}, REPO)
    assert (exc.value.code, exc.value.resumable) == ("refused", False)


def test_graphql_errors_stop_the_page() -> None:
    with pytest.raises(TrackerStop) as exc:
        items_page({"data": None, "errors": [{"type": "NOT_FOUND", "message": "no"}]}, REPO)
    assert exc.value.code == "refused" and "NOT_FOUND" in exc.value.detail


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.sampled_from(
                         ["data", "errors", "repositoryOwner", "projectV2", "items", "nodes",
                          "pageInfo", "hasNextPage", "endCursor", "content", "__typename",
                          "number", "repository", "nameWithOwner", "fieldValues", "name",
                          "field", "rateLimit", "cost", "type"]), inner, max_size=5),
                     max_leaves=30)


@given(_JSON)
def test_any_answer_is_a_page_or_a_named_stop(answer: Any) -> None:
    try:
        page = items_page(json.loads(json.dumps(answer)), REPO)
    except TrackerStop as stop:
        assert stop.code in ("malformed", "refused", "rate-limited") and stop.detail
    else:
        assert all(isinstance(n, int) and n > 0 for n in page.values)


def test_the_mapped_option_is_the_status() -> None:
    assert project_status({"Status": "In Progress"}, BOARD) == "in-progress"


def test_the_option_matches_case_blind_when_not_exactly() -> None:
    assert project_status({"Status": "in progress"}, BOARD) == "in-progress"


def test_no_value_or_an_unmapped_option_sets_no_status() -> None:
    assert project_status({"Size": "M"}, BOARD) is None
    assert project_status({"Status": "In review"}, BOARD) is None


def test_only_an_unmapped_status_option_is_named() -> None:
    assert unmapped_option({"Status": "In review"}, BOARD) == "In review"
    assert unmapped_option({"Status": "Todo"}, BOARD) is None
    assert unmapped_option({"Size": "M"}, BOARD) is None


def test_the_fingerprint_moves_with_the_values_and_with_the_map() -> None:
    values = {"Status": "Todo"}
    remapped = GitHubProjectsV2(owner="acme", number=3, statuses={"Todo": "parked"})
    assert values_fingerprint(values, BOARD) == values_fingerprint(dict(values), BOARD)
    assert values_fingerprint(values, BOARD) != values_fingerprint({"Status": "Done"}, BOARD)
    assert values_fingerprint(values, BOARD) != values_fingerprint(values, remapped)


def test_changed_numbers_are_changed_added_and_taken_off() -> None:
    before = {"1": "a", "2": "b", "3": "c"}
    assert changed_numbers(before, {"1": "a", "2": "x", "4": "d"}) == {2, 3, 4}


def test_relisting_wins_once_changes_outnumber_the_listing_pages() -> None:
    assert relist_instead(changed=50, held=5000) is False
    assert relist_instead(changed=51, held=5000) is True
    assert relist_instead(changed=1, held=0) is False
    assert relist_instead(changed=2, held=0) is True


def test_an_issue_off_the_project_is_unchanged() -> None:
    art = _artifact()
    assert with_project(art, {}, BOARD) is art


def test_the_project_values_set_status_metadata_and_blob() -> None:
    got = with_project(_artifact(), {"Status": "In Progress", "Size": "M"}, BOARD)
    assert got.status == "in-progress" and got.blob != "b" * 40
    assert got.metadata["labels"] == []
    assert got.metadata["projects_v2"] == {"project": "acme/projects/3",
                                           "fields": {"Status": "In Progress", "Size": "M"},
                                           "status_option": "In Progress",
                                           "status_mapped": True}


def test_an_unmapped_option_keeps_the_issue_status() -> None:
    got = with_project(_artifact(), {"Status": "In review"}, BOARD)
    assert got.status == "ready" and got.metadata["projects_v2"]["status_mapped"] is False
