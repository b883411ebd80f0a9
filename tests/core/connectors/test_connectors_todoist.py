"""The todoist source end to end: a real instance syncing from a fake Todoist on 127.0.0.1."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.refusal import Refusal

from revetly_core import Engine
from tests.core.connectors.todoist_instance import TOKEN, TOKEN_ENV, todoist_instance
from tests.support.fake_todoist import COMPLETED, PROJECT_ID, SYNC, FakeTodoist, serving


def _counts(summary: dict[str, object]) -> dict[str, int]:
    rows = {r["source"]: r for r in summary["sources"]}  # type: ignore[attr-defined]
    return dict(rows["todoist/app"]["counts"])


def _health(engine: Engine) -> dict[str, object]:
    return {s["source"]: s for s in engine.context_health()["sources"]}["todoist/app"]


def _populate(fake: FakeTodoist) -> dict[str, str]:
    """Six tasks of the project and one elsewhere; returns their Todoist ids by name."""
    doing = fake.add_section("Doing")
    ids = {
        "epic": fake.add_task("Offline sync", labels=("epic",))["id"],
    }
    ids["story"] = fake.add_task("Resolve conflicts on reconnect", labels=("story", "urgent"),
                                 section=doing["id"], parent=ids["epic"],
                                 description="The merge rule.", responsible="2671355",
                                 priority=4)["id"]
    ids["bug"] = fake.add_task("Crash on empty queue", labels=("bug",))["id"]
    ids["question"] = fake.add_task("Ask the vendor about quotas", labels=("question",))["id"]
    ids["plain"] = fake.add_task("Water the plants")["id"]
    ids["shipped"] = fake.add_task("Ship the beta", labels=("feature",))["id"]
    ids["other"] = fake.add_task("Someone else's task", labels=("story",),
                                 project_id="6Jf8VQXxpwv00000")["id"]
    fake.complete(ids["shipped"])
    fake.add_note(ids["story"], "Started on the merge rule.\nMore later.")
    fake.add_note(ids["other"], "Not ours")
    return ids


@pytest.fixture()
def synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           ) -> Iterator[tuple[Engine, FakeTodoist, dict[str, str]]]:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        ids = _populate(fake)
        engine = todoist_instance(tmp_path, fake.api_url)
        engine.sync()
        yield engine, fake, ids


def test_tasks_land_numbered_in_the_order_they_were_added(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, _, ids = synced
    got = {n: engine.get_artifact(f"TD-{n}") for n in range(1, 7)}
    assert [(got[n]["title"], got[n]["artifact_type"], got[n]["status"]) for n in range(1, 7)] == [
        ("Offline sync", "epic", "ready"),
        ("Resolve conflicts on reconnect", "story", "ready"),
        ("Crash on empty queue", "bug", "ready"),
        ("Ask the vendor about quotas", "item", "ready"),
        ("Water the plants", "item", "ready"),
        ("Ship the beta", "story", "done")]
    assert got[2]["source_uri"] == f"https://app.todoist.com/app/task/{ids['story']}"
    assert got[2]["owner"] == "2671355"


def test_a_task_of_another_project_is_not_read(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, _, _ = synced
    with pytest.raises(Refusal) as exc:
        engine.get_artifact("TD-7")
    assert exc.value.code == "not-found"


def test_the_parent_task_is_a_declared_link(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, _, _ = synced
    assert engine.get_artifact("TD-2")["declared_links"]["parent"] == ["TD-1"]


def test_the_metadata_keeps_section_labels_and_why_untyped(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, _, ids = synced
    meta = {n: engine.get_artifact(f"TD-{n}", history_after="")["metadata"] for n in (2, 4, 5, 6)}
    assert meta[2]["section"] == "Doing" and meta[2]["labels"] == ["story", "urgent"]
    assert meta[2]["typed_by"] == "label:story" and meta[2]["task_id"] == ids["story"]
    assert meta[2]["priority"] == 4
    assert (meta[4]["native_type"], meta[4]["untyped_why"]) == (None, "untyped")
    assert meta[5]["untyped_why"] == "untyped" and meta[5]["labels"] == []
    assert meta[6]["completed_at"] and meta[6]["checked"] is True


def test_comments_are_the_tasks_history(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, _, _ = synced
    entries = engine.get_artifact("TD-2", history_after="")["history_entries"]
    assert [(e["change"], e["summary"], e["author"]) for e in entries] == [
        ("commented", "Started on the merge rule.", "2671355")]
    assert entries[0]["revision"].startswith("comment/")


def test_the_first_pass_is_a_full_sync_then_the_completed_backfill(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    _, fake, _ = synced
    first = fake.requests[0]
    assert (first.method, first.path) == ("POST", SYNC)
    assert first.headers["authorization"] == f"Bearer {TOKEN}"
    assert first.form["sync_token"] == "*"
    assert json.loads(first.form["resource_types"]) == ["projects", "sections", "items", "notes"]
    completed = [r for r in fake.requests if r.path == COMPLETED]
    assert len(completed) == 5  # 365 days in windows of at most three months
    assert all(r.query["project_id"] == PROJECT_ID and r.query["limit"] == "200"
               for r in completed)
    assert [r.query["until"] for r in completed[:-1]] == [r.query["since"] for r in completed[1:]]


def test_an_incremental_pass_sends_the_token_and_reads_only_what_changed(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, fake, ids = synced
    token = fake.token()
    fake.touch(ids["epic"], content="Offline sync, reworked")
    fake.touch(ids["question"], labels=["story"])
    fake.complete(ids["bug"])
    fake.add_note(ids["plain"], "Watered on Monday")
    fake.requests.clear()
    summary = engine.sync()
    assert [r.path for r in fake.requests] == [SYNC, COMPLETED]
    assert fake.requests[0].form["sync_token"] == token
    assert engine.get_artifact("TD-1")["title"] == "Offline sync, reworked"
    assert engine.get_artifact("TD-4")["artifact_type"] == "story"
    assert engine.get_artifact("TD-3")["status"] == "done"
    assert [e["summary"] for e in engine.get_artifact("TD-5", history_after="")[
        "history_entries"]] == ["Watered on Monday"]
    assert _counts(summary)["updated"] == 3  # a comment is history, not a change of the task
    assert engine.get_artifact("TD-2", history_after="")["history_entries"]  # kept


def test_a_sync_token_todoist_no_longer_takes_starts_over_in_the_same_pass(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, fake, ids = synced
    fake.expire_tokens()
    fake.touch(ids["epic"], content="Offline sync, reworked")
    fake.requests.clear()
    engine.sync()
    assert [(r.path, r.form.get("sync_token") == "*") for r in fake.requests] == [
        (SYNC, False), (SYNC, True), (COMPLETED, False)]
    assert engine.get_artifact("TD-1")["title"] == "Offline sync, reworked"
    assert engine.get_artifact("TD-2")["title"] == "Resolve conflicts on reconnect"
    assert _health(engine)["partial"] is False


def test_a_new_task_takes_the_next_number_and_keeps_the_old_ones(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, fake, ids = synced
    fake.add_task("Write the changelog", labels=("story",), parent=ids["story"])
    engine.sync(full=True)
    assert engine.get_artifact("TD-7")["title"] == "Write the changelog"
    assert engine.get_artifact("TD-7")["declared_links"]["parent"] == ["TD-2"]
    assert engine.get_artifact("TD-2")["title"] == "Resolve conflicts on reconnect"


def test_a_deleted_task_is_removed_and_a_moved_one_leaves(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, fake, ids = synced
    fake.delete(ids["plain"])
    fake.touch(ids["question"], project_id="6Jf8VQXxpwv00000")
    summary = engine.sync()
    assert engine.get_artifact("TD-5", deleted="include")["deleted"] is True
    assert engine.get_artifact("TD-4", deleted="include")["deleted"] is True
    assert _counts(summary)["deleted"] == 2


def test_a_completed_task_outside_the_full_sync_is_kept_by_a_full_pass(
        synced: tuple[Engine, FakeTodoist, dict[str, str]]) -> None:
    engine, _, _ = synced
    engine.sync(full=True)
    got = engine.get_artifact("TD-6")
    assert (got["status"], got.get("deleted", False)) == ("done", False)


def test_a_project_named_by_its_id_reads_the_same(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        _populate(fake)
        engine = todoist_instance(tmp_path, fake.api_url, project=PROJECT_ID)
        engine.sync()
    assert engine.get_artifact("TD-1")["title"] == "Offline sync"


def test_an_unknown_project_is_named_not_resumable(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        _populate(fake)
        engine = todoist_instance(tmp_path, fake.api_url, project="Nowhere")
        engine.sync()
        problems = [p for p in engine.check()["problems"] if p.get("source") == "todoist/app"]
    assert [(p["code"], p["path"]) for p in problems] == [("tracker-refused", "tasks")]
    assert "'Nowhere'" in problems[0]["detail"]
    assert _health(engine)["partial"] is False


def test_a_rate_limit_mid_backfill_is_partial_and_the_next_pass_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        for n in range(1, 451):
            fake.complete(fake.add_task(f"Task number {n}", labels=("story",))["id"])
        fake.rate_limit(COMPLETED, after=4)  # the fourth window's second page
        engine = todoist_instance(tmp_path, fake.api_url)
        first = engine.sync()
        assert _health(engine)["partial"] is True and _counts(first)["added"] == 200
        named = [p for p in engine.check()["problems"] if p["code"] == "tracker-rate-limited"]
        assert named and named[0]["path"] == "tasks"
        stopped = [r for r in fake.requests if r.path == COMPLETED][-1]
        fake.requests.clear()
        second = engine.sync()
        resumed = fake.requests[1]
        assert (resumed.query["since"], resumed.query["cursor"]) == (
            stopped.query["since"], stopped.query["cursor"])
        assert _health(engine)["partial"] is False and _counts(second)["added"] == 250
        assert not [p for p in engine.check()["problems"] if p["code"].startswith("tracker-")]


def test_a_disconnect_mid_backfill_is_partial_then_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        for n in range(1, 251):
            fake.complete(fake.add_task(f"Task number {n}")["id"])
        fake.fail(COMPLETED, disconnect=True, after=5)
        engine = todoist_instance(tmp_path, fake.api_url)
        engine.sync()
        assert _health(engine)["partial"] is True
        assert [p["code"] for p in engine.check()["problems"]
                if p.get("source") == "todoist/app"] == ["tracker-disconnected"]
        engine.sync()
        assert _health(engine)["partial"] is False
        assert engine.get_artifact("TD-250")["status"] == "done"


def test_a_5xx_on_the_sync_keeps_the_token_and_the_next_pass_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        _populate(fake)
        fake.fail(SYNC, status=503)
        engine = todoist_instance(tmp_path, fake.api_url)
        summary = engine.sync()
        assert summary["outcome"] == "succeeded" and _health(engine)["partial"] is True
        fake.requests.clear()
        engine.sync()
        assert fake.requests[0].form["sync_token"] == "*"
        assert engine.get_artifact("TD-1")["title"] == "Offline sync"


def test_malformed_json_is_named_and_the_pass_continues(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        fake.add_task("Fine")
        fake.fail(SYNC, status=200, body=b'{"items": [')
        engine = todoist_instance(tmp_path, fake.api_url)
        assert engine.sync()["outcome"] == "succeeded"
        assert [p["code"] for p in engine.check()["problems"]
                if p.get("source") == "todoist/app"] == ["tracker-malformed"]
        engine.sync()
        assert engine.get_artifact("TD-1")["title"] == "Fine"


def test_a_hostile_task_is_named_never_a_crash(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    with serving(fake):
        fake.add_task("Fine")
        huge = fake.add_task("Huge", description="x" * 2_000_000)
        labels = fake.add_task("Wrong labels")
        labels["labels"] = "bug"
        untitled = fake.add_task("No title")
        del untitled["content"]
        flag = fake.add_task("Section as a number")
        flag["section_id"] = 7
        engine = todoist_instance(tmp_path, fake.api_url)
        engine.sync()
        assert engine.get_artifact("TD-1")["title"] == "Fine"
        problems = {p["path"]: p for p in engine.check()["problems"]
                    if p.get("source") == "todoist/app"}
    assert {f"tasks/{t['id']}" for t in (huge, labels, untitled, flag)} <= set(problems)
    assert "byte limit" in problems[f"tasks/{huge['id']}"]["detail"]
    assert "'labels'" in problems[f"tasks/{labels['id']}"]["detail"]


def test_the_token_never_reaches_context_logs_or_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeTodoist()
    caplog.set_level(logging.DEBUG)
    with serving(fake):
        _populate(fake)
        fake.fail(SYNC, status=401, body=b'{"error": "Invalid token", "http_code": 401}')
        engine = todoist_instance(tmp_path, fake.api_url)
        answers = [engine.sync(), engine.check(), engine.sync(), engine.context_health(),
                   engine.get_artifact("TD-2", history_after=""), engine.search_context("sync")]
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in fake.requests)
    assert all(r.path.startswith("/api/v1/") for r in fake.requests)  # only under api_url
    assert "Invalid token" in json.dumps(answers[1])
    assert TOKEN not in json.dumps(answers, default=str)
    assert TOKEN not in caplog.text
    for path in (engine.root / ".revetly").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in (engine.root / "revetly.toml").read_text()


def test_the_token_is_never_sent_outside_api_url(monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx
    from revetly_core.config import Config
    from revetly_core.config import TodoistConnector as TodoistSettings
    from revetly_core.connectors.todoist import TodoistConnector
    from revetly_core.connectors.tracker_http import TrackerStop

    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"sync_token": "t1", "full_sync": True, "projects": [
            {"id": PROJECT_ID, "name": "App", "is_deleted": False}], "items": []})

    settings = TodoistSettings(name="app", project="App", prefix="TD", token_env=TOKEN_ENV,
                               api_url="https://api.todoist.com/api/v1")
    connector = TodoistConnector(settings, Config(), transport=httpx.MockTransport(answer),
                                 environ={TOKEN_ENV: TOKEN})
    connector.read({}, {}, full=True, now="2026-12-01T00:00:00Z")
    assert sent and {(r.url.scheme, r.url.host) for r in sent} == {("https", "api.todoist.com")}
    assert all(r.url.path.startswith("/api/v1/") for r in sent)
    http = connector.http()
    with pytest.raises(TrackerStop) as exc:
        http.get("https://elsewhere.example/api/v1/sync")
    http.close()
    assert exc.value.code == "refused" and not exc.value.resumable
    assert "outside the configured api_url" in exc.value.detail and TOKEN not in exc.value.detail
