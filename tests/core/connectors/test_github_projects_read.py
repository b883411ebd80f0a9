"""The project read and the connector's cursor, one level below the instance: read_project
over a real TrackerHttp, and GitHubConnector.read's batch against the fake GitHub."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from revetly_core.config import Config, GitHubProjectsV2, parse_config
from revetly_core.connectors.github import GitHubConnector
from revetly_core.connectors.github_projects import read_project
from revetly_core.connectors.tracker_http import TrackerHttp
from revetly_core.ids import DEFAULT_FAMILIES

from tests.support.fake_github import FakeGitHub, serving

BOARD = GitHubProjectsV2(owner="acme", number=1, statuses={"Todo": "ready", "Done": "done"})
NOW = "2026-01-01T00:00:00Z"


@pytest.fixture()
def fake() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    with serving(fake):
        for n in range(1, 151):
            fake.add_issue(n, f"Issue number {n}", labels=("story",))
            fake.add_project_item(n, {"Status": "Done" if n % 2 else "Todo"})
        fake.add_project_item(7, {"Status": "Done"}, kind="DraftIssue")
        yield fake


def _http(fake: FakeGitHub) -> TrackerHttp:
    return TrackerHttp(fake.url, {}, retries=0, max_wait_seconds=0)


def _connector(fake: FakeGitHub) -> tuple[GitHubConnector, Config]:
    board: dict[str, Any] = {"owner": "acme", "number": 1, "statuses": dict(BOARD.statuses)}
    config = parse_config({"ids": {"families": {**DEFAULT_FAMILIES, "GH": "story"}},
                           "connectors": {"github": [{"name": "app", "repo": "acme/app",
                                                      "prefix": "GH", "api_url": fake.url,
                                                      "retries": 0, "max_wait_seconds": 0,
                                                      "projects_v2": board}]}})
    return GitHubConnector(config.connectors.github[0], config), config


def test_read_project_pages_to_the_end_and_counts_cost_and_left_out(fake: FakeGitHub) -> None:
    http = _http(fake)
    try:
        got = read_project(http, BOARD, "acme/app")
    finally:
        http.close()
    assert (got.pages, got.cost, got.skipped, got.stop) == (2, 2, 1, None)
    assert len(got.values) == 150 and got.values[2] == {"Status": "Todo"}


def test_read_project_resumes_after_a_cursor_with_the_values_before_it(
        fake: FakeGitHub) -> None:
    http = _http(fake)
    try:
        first_page_end = read_project(http, BOARD, "acme/app").after
        got = read_project(http, BOARD, "acme/app", after=first_page_end,
                           pending={1: {"Status": "Done"}})
    finally:
        http.close()
    assert got.pages == 1 and set(got.values) == {1} | set(range(101, 151))


def test_the_cursor_keeps_fingerprints_and_the_read_it_made(fake: FakeGitHub) -> None:
    connector, _ = _connector(fake)
    batch = connector.read({}, {}, full=True, now=NOW)
    assert batch.cursor["project_of"] == "acme/projects/1"
    assert batch.cursor["project_read"] == {"pages": 2, "points": 2, "items_left_out": 1}
    assert len(batch.cursor["project_digests"]) == 150
    assert "project_after" not in batch.cursor and "project_pending" not in batch.cursor
    assert {a.status for a in batch.upserts} == {"ready", "done"}


def test_a_stopped_read_keeps_its_pages_and_end_cursor(fake: FakeGitHub) -> None:
    connector, _ = _connector(fake)
    fake.fail("/graphql", status=500, after=1)
    batch = connector.read({}, {"since": "2023-11-14T22:13:20Z"}, full=False, now=NOW)
    assert batch.partial is True and batch.upserts == [] and batch.complete is False
    assert batch.history_complete is False
    assert batch.cursor["since"] == "2023-11-14T22:13:20Z"
    assert batch.cursor["project_of"] == "acme/projects/1"
    assert isinstance(batch.cursor["project_after"], str)
    assert len(batch.cursor["project_pending"]) == 100


def test_a_resumed_read_from_another_project_starts_over(fake: FakeGitHub) -> None:
    connector, _ = _connector(fake)
    stale = {"project_of": "acme/projects/2", "project_after": "Y3Vyc29yOjEwMA==",
             "project_pending": {"999": {"Status": "Done"}}}
    batch = connector.read({}, stale, full=False, now=NOW)
    first = next(r for r in fake.requests if r.path == "/graphql")
    assert first.body["variables"]["after"] is None
    assert "999" not in batch.cursor["project_digests"]
