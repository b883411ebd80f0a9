"""The github source end to end: a real instance syncing from a fake GitHub on 127.0.0.1."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.refusal import Refusal

from revetly_core import Engine
from tests.core.connectors.github_instance import TOKEN, TOKEN_ENV, github_instance
from tests.support.fake_github import FakeGitHub, serving

ISSUES = "/repos/acme/app/issues"


def _counts(summary: dict[str, object]) -> dict[str, int]:
    rows = {r["source"]: r for r in summary["sources"]}  # type: ignore[attr-defined]
    return dict(rows["github/app"]["counts"])


def _health(engine: Engine) -> dict[str, object]:
    return {s["source"]: s for s in engine.context_health()["sources"]}["github/app"]
COMMENTS = "/repos/acme/app/issues/comments"


def _populate(fake: FakeGitHub) -> None:
    fake.add_issue(1, "Offline sync", labels=("epic",))
    fake.add_issue(2, "Resolve conflicts on reconnect", labels=("story", "in-progress"),
                   assignees=("ana", "bo"), milestone="v1", parent=1,
                   body="The merge rule.\n\nCloses #3 and fixes acme/app#4; fixes other/repo#9.")
    fake.add_issue(3, "Crash on empty queue", issue_type="Bug", state="closed",
                   state_reason="completed")
    fake.add_issue(4, "Dark mode", labels=("feature",), state="closed",
                   state_reason="not_planned")
    fake.add_issue(5, "Ask the vendor about quotas", labels=("question",))
    fake.add_issue(6, "Spike: storage engines", issue_type="Spike")
    fake.add_issue(7, "Bump the parser", pull_request=True)
    fake.add_comment(2, "Started on the merge rule.\nMore later.", author="ana")
    fake.add_comment(7, "LGTM")


@pytest.fixture()
def synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine,
                                                                                FakeGitHub]]:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        _populate(fake)
        engine = github_instance(tmp_path, fake.url)
        engine.sync()
        yield engine, fake


def test_issues_land_with_their_ids_types_and_statuses(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    got = {i: engine.get_artifact(f"GH-{i}") for i in range(1, 7)}
    assert [(got[i]["artifact_type"], got[i]["status"]) for i in range(1, 7)] == [
        ("epic", "ready"), ("story", "in-progress"), ("bug", "done"), ("story", "discarded"),
        ("issue", "ready"), ("issue", "ready")]
    assert got[2]["title"] == "Resolve conflicts on reconnect"
    assert got[2]["source_uri"] == "https://github.com/acme/app/issues/2"
    assert got[2]["owner"] == "ana"


def test_a_pull_request_is_skipped(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    with pytest.raises(Refusal) as exc:
        engine.get_artifact("GH-7")
    assert exc.value.code == "not-found"


def test_the_parent_and_closing_references_are_declared_links(
        synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    links = engine.get_artifact("GH-2")["declared_links"]
    assert links["parent"] == ["GH-1"]
    assert links["references"] == ["GH-3", "GH-4"]


def test_comments_are_the_items_history(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = synced
    full = engine.get_artifact("GH-2", history_after="")
    entries = full["history_entries"]
    assert [(e["change"], e["summary"]) for e in entries] == [
        ("commented", "Started on the merge rule.")]
    assert entries[0]["author"] == "ana"
    assert fake.comments and all(e["revision"].startswith("comment/") for e in entries)


def test_the_metadata_keeps_what_outside_backlog_needs(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    meta = {i: engine.get_artifact(f"GH-{i}", history_after="")["metadata"] for i in (2, 3, 5, 6)}
    assert meta[2]["labels"] == ["story", "in-progress"] and meta[2]["typed_by"] == "label:story"
    assert meta[3]["native_type"] == "Bug" and meta[3]["typed_by"] == "native_type:Bug"
    assert (meta[5]["native_type"], meta[5]["untyped_why"]) == (None, "untyped")
    assert (meta[6]["native_type"], meta[6]["untyped_why"]) == ("Spike", "unmapped")
    assert meta[2]["milestone"] == "v1" and meta[2]["assignees"] == ["ana", "bo"]


def test_the_first_pass_sends_the_token_and_pages_by_100(synced: tuple[Engine, FakeGitHub]) -> None:
    _, fake = synced
    first = fake.requests[0]
    assert first.path == ISSUES
    assert first.headers["authorization"] == f"Bearer {TOKEN}"
    assert first.query == {"sort": "updated", "direction": "asc", "per_page": "100",
                           "state": "all"}
    assert fake.paths_requested() == [ISSUES, COMMENTS]


def test_an_incremental_pass_after_three_changes_asks_only_since(
        synced: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = synced
    newest = max(i["updated_at"] for i in fake.items.values())
    fake.touch(1, title="Offline sync, reworked")
    fake.touch(5, labels=[{"name": "story"}])
    fake.add_comment(3, "Reopened? No, just noting.")
    fake.requests.clear()
    summary = engine.sync()
    assert [r.path for r in fake.requests] == [ISSUES, COMMENTS]
    assert fake.requests[0].query["since"] == newest
    assert "if-none-match" not in fake.requests[0].headers
    assert engine.get_artifact("GH-1")["title"] == "Offline sync, reworked"
    assert engine.get_artifact("GH-5")["artifact_type"] == "story"
    assert [e["summary"] for e in engine.get_artifact("GH-3", history_after="")["history_entries"]] == [
        "Reopened? No, just noting."]
    assert _counts(summary)["updated"] == 3


def test_a_quiet_pass_is_one_request_answered_304(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = synced
    engine.sync()  # records the ETag of the listing since the newest update
    fake.requests.clear()
    engine.sync()
    assert [r.path for r in fake.requests] == [ISSUES]
    assert fake.requests[0].headers.get("if-none-match", "").startswith('W/"')


def test_an_issue_gone_from_a_full_listing_is_removed(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = synced
    del fake.items[6]
    engine.sync(full=True)
    got = engine.get_artifact("GH-6", deleted="include")
    assert got["deleted"] is True


def test_a_rate_limit_mid_backfill_is_partial_and_the_next_pass_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        for n in range(1, 251):
            fake.add_issue(n, f"Issue number {n}", labels=("story",))
        fake.rate_limit(ISSUES, after=1)
        engine = github_instance(tmp_path, fake.url)
        first = engine.sync()
        assert _health(engine)["partial"] is True and _counts(first)["added"] == 100
        named = [p for p in engine.check()["problems"] if p["code"] == "tracker-rate-limited"]
        assert named and named[0]["path"] == "issues"
        fake.requests.clear()
        second = engine.sync()
        assert _health(engine)["partial"] is False and _counts(second)["added"] == 150
        assert fake.requests[0].query["since"] == fake.items[100]["updated_at"]
        assert engine.get_artifact("GH-250")["title"] == "Issue number 250"
        assert not [p for p in engine.check()["problems"] if p["code"].startswith("tracker-")]


def test_a_hostile_payload_is_named_never_a_crash(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        fake.add_issue(1, "Fine")
        fake.add_issue(2, "Huge", body="x" * 2_000_000)
        fake.add_issue(3, "Wrong labels")
        fake.items[3]["labels"] = "bug"
        fake.add_issue(4, "No title")
        del fake.items[4]["title"]
        fake.add_issue(5, "Numbered as text")
        fake.items[5]["state"] = 7
        engine = github_instance(tmp_path, fake.url)
        engine.sync()
        assert engine.get_artifact("GH-1")["title"] == "Fine"
        problems = {p["path"]: p for p in engine.check()["problems"]
                    if p.get("source") == "github/app" or p["path"].startswith("issues/")}
        assert {"issues/2", "issues/3", "issues/4", "issues/5"} <= set(problems)
        assert "byte limit" in problems["issues/2"]["detail"]
        assert "'labels'" in problems["issues/3"]["detail"]


def test_malformed_json_is_named_and_the_pass_continues(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        fake.add_issue(1, "Fine")
        fake.fail(ISSUES, status=200, body=b'[{"number": 1,')
        engine = github_instance(tmp_path, fake.url)
        summary = engine.sync()
        assert summary["outcome"] == "succeeded"
        assert _health(engine)["partial"] is True
        engine.sync()
        assert engine.get_artifact("GH-1")["title"] == "Fine"


def test_the_token_never_reaches_context_logs_or_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    caplog.set_level(logging.DEBUG)
    with serving(fake):
        _populate(fake)
        fake.fail(ISSUES, status=401, body=b'{"message": "Bad credentials"}', after=0)
        engine = github_instance(tmp_path, fake.url)
        answers = [engine.sync(), engine.check(), engine.sync(), engine.context_health(),
                   engine.get_artifact("GH-2", history_after=""), engine.search_context("sync")]
    assert fake.requests[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in json.dumps(answers, default=str)
    assert TOKEN not in caplog.text
    for path in (engine.root / ".revetly").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in (engine.root / "revetly.toml").read_text()


def test_without_a_token_the_read_is_anonymous(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    fake = FakeGitHub()
    with serving(fake):
        fake.add_issue(1, "Public issue")
        engine = github_instance(tmp_path, fake.url)
        engine.sync()
    assert "authorization" not in fake.requests[0].headers
    assert engine.get_artifact("GH-1")["title"] == "Public issue"
