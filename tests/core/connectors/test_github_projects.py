"""GitHub Projects (v2) on the github source, end to end: a real instance syncing a fake
GitHub whose ``/graphql`` serves one project's items."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from revetly_core import Engine
from tests.core.connectors.github_instance import TOKEN, TOKEN_ENV, github_instance
from tests.support.fake_github import FakeGitHub, serving

GRAPHQL = "/graphql"
ISSUES = "/repos/acme/app/issues"
COMMENTS = "/repos/acme/app/issues/comments"
PROJECT = """
[connectors.github.projects_v2]
owner = "acme"
number = 1
status_field = "Status"

[connectors.github.projects_v2.statuses]
Todo = "ready"
"In Progress" = "in-progress"
Done = "done"
Icebox = "parked"
"""


def _instance(base: Path, fake: FakeGitHub, project: str = PROJECT) -> Engine:
    return github_instance(base, fake.url, extra=project)


def _counts(summary: dict[str, Any]) -> dict[str, int]:
    return dict({r["source"]: r for r in summary["sources"]}["github/app"]["counts"])


def _health(engine: Engine) -> dict[str, Any]:
    return {s["source"]: s for s in engine.context_health()["sources"]}["github/app"]


def _problems(engine: Engine, code: str) -> list[dict[str, Any]]:
    return [p for p in engine.check()["problems"] if p["code"] == code]


def _status(engine: Engine, n: int) -> str:
    return str(engine.get_artifact(f"GH-{n}")["status"])


def _graphql(fake: FakeGitHub) -> list[Any]:
    return [r for r in fake.requests if r.path == GRAPHQL]


def _board(fake: FakeGitHub) -> None:
    fake.add_issue(1, "Offline sync", labels=("epic",))
    fake.add_issue(2, "Resolve conflicts", labels=("story",))
    fake.add_issue(3, "Crash on empty queue", issue_type="Bug", state="closed",
                   state_reason="completed")
    fake.add_issue(4, "Dark mode", labels=("feature",))
    fake.add_issue(5, "Not on the board", labels=("story",))
    fake.add_issue(6, "A pull request", pull_request=True)
    fake.add_project_item(1, {"Status": "In Progress", "Priority": "P1"})
    fake.add_project_item(2, {"Status": "In review"})
    fake.add_project_item(3, {"Status": "Todo"})
    fake.add_project_item(4, {"Status": "Icebox"})
    fake.add_project_item(6, {"Status": "Done"}, kind="PullRequest")
    fake.add_project_item(9, {"Status": "Done"}, kind="DraftIssue")
    fake.add_project_item(4, {"Status": "Done"}, repo="other/repo")


@pytest.fixture()
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, FakeGitHub]]:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        _board(fake)
        engine = _instance(tmp_path, fake)
        engine.sync()
        yield engine, fake


def test_the_mapped_status_option_sets_the_status(board: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = board
    assert [_status(engine, n) for n in (1, 3, 4)] == ["in-progress", "ready", "parked"]


def test_an_issue_off_the_board_keeps_its_own_status(board: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = board
    got = engine.get_artifact("GH-5", history_after="")
    assert got["status"] == "ready" and "projects_v2" not in got["metadata"]


def test_the_project_values_are_served_in_metadata(board: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = board
    meta = engine.get_artifact("GH-1", history_after="")["metadata"]["projects_v2"]
    assert meta == {"project": "acme/projects/1", "fields": {"Status": "In Progress",
                                                             "Priority": "P1"},
                    "status_option": "In Progress", "status_mapped": True}


def test_an_unmapped_option_is_kept_and_named_by_check(board: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = board
    got = engine.get_artifact("GH-2", history_after="")
    assert got["status"] == "ready"
    assert got["metadata"]["projects_v2"]["status_option"] == "In review"
    assert got["metadata"]["projects_v2"]["status_mapped"] is False
    named = _problems(engine, "project-status-unmapped")
    assert [(p["path"], p["severity"]) for p in named] == [("issues/2", "warning")]
    assert "'In review'" in named[0]["detail"]


def test_pull_requests_drafts_and_other_repositories_are_left_out(
        board: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = board
    assert _status(engine, 4) == "parked"  # other/repo#4 is Done: not this issue


def test_the_project_is_read_first_by_graphql_with_the_token(
        board: tuple[Engine, FakeGitHub]) -> None:
    _, fake = board
    assert fake.paths_requested() == [GRAPHQL, ISSUES, COMMENTS]
    first = fake.requests[0]
    assert first.method == "POST"
    assert first.headers["authorization"] == f"Bearer {TOKEN}"
    assert first.body["variables"] == {"owner": "acme", "number": 1, "first": 100,
                                       "after": None, "values": 50}
    assert "items(first: $first, after: $after)" in first.body["query"]
    assert "pageInfo { hasNextPage endCursor }" in first.body["query"]


def test_the_items_are_paged_by_their_end_cursor(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        for n in range(1, 251):
            fake.add_issue(n, f"Issue number {n}", labels=("story",))
            fake.add_project_item(n, {"Status": "Done" if n > 200 else "Todo"})
        engine = _instance(tmp_path, fake)
        engine.sync()
        pages = _graphql(fake)
        assert len(pages) == 3
        afters = [r.body["variables"]["after"] for r in pages]
        assert afters[0] is None and afters[1] and afters[2] and afters[1] != afters[2]
        assert [_status(engine, n) for n in (1, 200, 201, 250)] == [
            "ready", "ready", "done", "done"]


def test_only_issues_whose_values_changed_are_upserted(
        board: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = board
    engine.sync()  # the listing's ETag is recorded: a quiet pass answers 304
    fake.set_project_value(3, "Status", "Done")
    fake.requests.clear()
    summary = engine.sync()
    assert fake.paths_requested() == [GRAPHQL, ISSUES, f"{ISSUES}/3"]
    assert _counts(summary)["updated"] == 1
    assert _status(engine, 3) == "done"
    fake.requests.clear()
    assert _counts(engine.sync())["updated"] == 0
    assert fake.paths_requested() == [GRAPHQL, ISSUES]


def test_an_issue_taken_off_the_board_falls_back_to_its_own_status(
        board: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = board
    fake.remove_project_item(1)
    engine.sync()
    got = engine.get_artifact("GH-1", history_after="")
    assert got["status"] == "ready" and "projects_v2" not in got["metadata"]


def test_a_mapped_option_clears_the_unmapped_warning(board: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = board
    fake.set_project_value(2, "Status", "Done")
    engine.sync()
    assert _status(engine, 2) == "done"
    assert not _problems(engine, "project-status-unmapped")


def test_many_changed_values_relist_the_issues_instead(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        for n in range(1, 21):
            fake.add_issue(n, f"Issue number {n}", labels=("story",))
            fake.add_project_item(n, {"Status": "Todo"})
        engine = _instance(tmp_path, fake)
        engine.sync()
        for n in range(1, 21):
            fake.set_project_value(n, "Status", "Done")
        fake.requests.clear()
        summary = engine.sync()
        listing = [r for r in fake.requests if r.path == ISSUES]
        assert [r.path for r in fake.requests] == [GRAPHQL, ISSUES, COMMENTS]
        assert "since" not in listing[0].query
        assert _counts(summary)["updated"] == 20
        assert {_status(engine, n) for n in range(1, 21)} == {"done"}


def test_a_5xx_mid_read_is_partial_and_the_next_pass_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        for n in range(1, 251):
            fake.add_issue(n, f"Issue number {n}", labels=("story",))
            fake.add_project_item(n, {"Status": "Done"})
        fake.fail(GRAPHQL, status=502, after=1)
        engine = _instance(tmp_path, fake)
        first = engine.sync()
        assert _health(engine)["partial"] is True
        assert _counts(first)["added"] == 0  # no issue is read half from the project
        named = _problems(engine, "tracker-server-error")
        assert named and named[0]["path"] == "projects_v2"
        resumed_from = json.loads(json.dumps(_graphql(fake)[1].body))["variables"]["after"]
        fake.requests.clear()
        second = engine.sync()
        assert _graphql(fake)[0].body["variables"]["after"] == resumed_from
        assert len(_graphql(fake)) == 2
        assert _health(engine)["partial"] is False and _counts(second)["added"] == 250
        assert {_status(engine, n) for n in (1, 100, 101, 250)} == {"done"}
        assert not _problems(engine, "tracker-server-error")


def test_malformed_json_is_named_and_the_next_pass_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        _board(fake)
        fake.fail(GRAPHQL, status=200, body=b'{"data": {"repositoryOwner": ')
        engine = _instance(tmp_path, fake)
        engine.sync()
        assert _health(engine)["partial"] is True
        assert _problems(engine, "tracker-malformed")[0]["path"] == "projects_v2"
        engine.sync()
        assert _status(engine, 1) == "in-progress"
        assert not _problems(engine, "tracker-malformed")


@pytest.mark.parametrize("style", ["headers", "graphql-errors"])
def test_a_rate_limit_is_partial_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           style: str) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        _board(fake)
        if style == "headers":
            fake.rate_limit(GRAPHQL)
        else:
            fake.fail(GRAPHQL, status=200, body=json.dumps({"errors": [
                {"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}).encode())
        engine = _instance(tmp_path, fake)
        engine.sync()
        assert _health(engine)["partial"] is True
        assert _problems(engine, "tracker-rate-limited")[0]["path"] == "projects_v2"
        engine.sync()
        assert _status(engine, 4) == "parked"


def test_a_project_github_does_not_hold_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        _board(fake)
        engine = _instance(tmp_path, fake, PROJECT.replace("number = 1", "number = 9"))
        engine.sync()
        named = _problems(engine, "tracker-refused")
        assert named and named[0]["path"] == "projects_v2"
        assert "NOT_FOUND" in named[0]["detail"] and "read:project" in named[0]["detail"]
        assert _health(engine)["partial"] is False


def test_without_the_setting_no_project_is_read_and_issues_read_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        _board(fake)
        plain = github_instance(tmp_path / "plain", fake.url)
        plain.sync()
        assert GRAPHQL not in fake.paths_requested()
        with_board = _instance(tmp_path / "board", fake)
        with_board.sync()
        for n in (1, 2):
            assert plain.get_artifact(f"GH-{n}")["status"] == "ready"
            assert "projects_v2" not in plain.get_artifact(f"GH-{n}", history_after="")["metadata"]
        alone, beside = (e.get_artifact("GH-5", history_after="") for e in (plain, with_board))
        alone.pop("freshness"), beside.pop("freshness")
        assert alone == beside
        assert not _problems(plain, "project-status-unmapped")


def test_a_redirect_never_carries_the_token_elsewhere(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake, elsewhere = FakeGitHub(), FakeGitHub()
    with serving(fake), serving(elsewhere):
        _board(fake)
        fake.fail(GRAPHQL, status=307, headers={"Location": f"{elsewhere.url}/graphql"})
        engine = _instance(tmp_path, fake)
        engine.sync()
        answers = [engine.check(), engine.context_health()]
    assert elsewhere.requests == []
    assert _graphql(fake)[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in json.dumps(answers, default=str)
    for path in (engine.root / ".revetly").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path


def test_a_failed_fetch_of_a_changed_issue_is_taken_again_next_pass(
        board: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = board
    fake.set_project_value(3, "Status", "Done")
    fake.fail(f"{ISSUES}/3", status=503, method="GET")
    engine.sync()
    assert _health(engine)["partial"] is True and _status(engine, 3) == "ready"
    fake.requests.clear()
    summary = engine.sync()
    assert f"{ISSUES}/3" in fake.paths_requested()
    assert _status(engine, 3) == "done" and _counts(summary)["read"] >= 1
    assert _health(engine)["partial"] is False


def test_a_disconnect_mid_read_is_partial_and_resumes(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        for n in range(1, 151):
            fake.add_issue(n, f"Issue number {n}", labels=("story",))
            fake.add_project_item(n, {"Status": "Icebox"})
        fake.fail(GRAPHQL, disconnect=True, after=1)
        engine = _instance(tmp_path, fake)
        engine.sync()
        assert _health(engine)["partial"] is True
        assert _problems(engine, "tracker-disconnected")[0]["path"] == "projects_v2"
        fake.requests.clear()
        engine.sync()
        assert _graphql(fake)[0].body["variables"]["after"] is not None
        assert {_status(engine, n) for n in (1, 150)} == {"parked"}
