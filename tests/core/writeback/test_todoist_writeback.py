"""The Todoist write adapter end to end: set_status on a task, each request asserted as the
fake Todoist received it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.config import TodoistConnector as TodoistSettings
from revetly_core.refusal import Refusal
from revetly_core.writeback.protocol import RemoteItem
from revetly_core.writeback.todoist import TodoistWriter, task_action_for

from revetly_core import Engine
from tests.core.connectors.todoist_instance import TOKEN, TOKEN_ENV, todoist_instance
from tests.core.writeback.conftest import DONE_VERDICTS, STORY_BODY, delivery_files, reopen_engine
from tests.support.fake_todoist import API, FakeTodoist, serving


@pytest.fixture()
def td(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
       ) -> Iterator[tuple[Engine, FakeTodoist, list[str]]]:
    """An instance reading the fake's project (TD-1 a story with two criteria, TD-2 a bug)."""
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    for name in ("REVETLY_REVIEWER", "REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY",
                 "REVETLY_CRASH_AT"):
        monkeypatch.delenv(name, raising=False)
    fake = FakeTodoist()
    with serving(fake):
        ids = [fake.add_task("Offline sync", labels=("story",), description=STORY_BODY)["id"],
               fake.add_task("Crash on empty queue", labels=("bug",))["id"]]
        fake.add_note(ids[0], "A person's comment, never edited by Revetly.")
        engine = todoist_instance(tmp_path, fake.api_url)
        engine.capture_mode = "none"
        engine.sync()
        yield engine, fake, ids


def _writes(fake: FakeTodoist) -> list[tuple[str, str, object]]:
    return [(r.method, r.path, r.body) for r in fake.writes()]


@pytest.mark.parametrize("status", ["in-progress", "discarded", "parked", "draft"])
def test_a_status_todoist_cannot_hold_is_refused_by_name_before_any_request(
        td: tuple[Engine, FakeTodoist, list[str]], status: str) -> None:
    engine, fake, _ = td
    sent = len(fake.requests)
    with pytest.raises(Refusal) as exc:
        engine.set_status("TD-1", status, claimed_by="agent-7", reason="moved on")
    assert exc.value.code == "tracker-cannot-hold" and status in exc.value.detail
    assert exc.value.extra["wrote"] is False and len(fake.requests) == sent


def test_in_progress_is_refused_because_todoist_has_no_such_state(
        td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, _, _ = td
    with pytest.raises(Refusal) as exc:
        engine.set_status("TD-1", "in-progress", claimed_by="agent-7")
    assert "Todoist has no in-progress state" in exc.value.detail


def test_done_closes_the_task_and_posts_the_delivery_note(
        td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, fake, ids = td
    out = engine.set_status("TD-1", "done", verdicts=DONE_VERDICTS)
    did = out["delivery"]["artifact_id"]
    note = fake.notes_on(ids[0])[-1]
    assert _writes(fake) == [
        ("POST", f"{API}/tasks/{ids[0]}/close", None),
        ("POST", f"{API}/comments", {"task_id": ids[0], "content": note["content"]}),
    ]
    assert ids[0] in fake.closed and out["did"] == "flip+delivery"
    assert out["delivery_note"]["action"] == "posted" and out["delivery_note"]["ref"] == note["id"]
    assert delivery_files(engine) == [f"{did}.md"]
    assert f"<!-- revetly:delivery {did} -->" in note["content"]
    assert "Edits made offline sync — **met**" in note["content"]
    assert all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in fake.writes())


def test_a_closed_task_reads_back_done(td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, _, _ = td
    engine.set_status("TD-2", "done")
    engine.sync()
    assert engine.get_artifact("TD-2")["status"] == "done"


def test_tracker_note_false_closes_without_a_note(
        td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, fake, ids = td
    engine = reopen_engine(engine, "\n[backend]\ntracker_note = false\n")
    out = engine.set_status("TD-1", "done", verdicts=DONE_VERDICTS)
    assert "delivery_note" not in out and out["delivery"]["artifact_id"]
    assert _writes(fake) == [("POST", f"{API}/tasks/{ids[0]}/close", None)]
    assert len(fake.notes_on(ids[0])) == 1  # the person's comment alone


def test_ready_reopens_a_completed_task(td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, fake, ids = td
    engine.set_status("TD-2", "done")
    engine.sync()
    fake.requests.clear()
    engine.set_status("TD-2", "ready")
    assert _writes(fake) == [("POST", f"{API}/tasks/{ids[1]}/reopen", None)]
    assert ids[1] not in fake.closed


def test_a_lost_answer_to_the_note_is_edited_not_posted_again(
        td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, fake, ids = td
    fake.fail(f"{API}/comments", method="POST", disconnect=True, apply_first=True)
    first = engine.set_status("TD-1", "done", verdicts=DONE_VERDICTS)
    did = first["delivery"]["artifact_id"]
    marker = f"<!-- revetly:delivery {did} -->"
    assert [s["step"] for s in first["writeback"]["not_landed"]] == ["delivery_note"]
    assert ids[0] in fake.closed  # the status landed
    fake.requests.clear()
    second = engine.set_status("TD-1", "done", verdicts=DONE_VERDICTS)
    assert second["delivery_note"]["action"] == "edited"
    note = [n for n in fake.notes_on(ids[0]) if marker in n["content"]]
    assert len(note) == 1
    assert _writes(fake) == [("POST", f"{API}/comments/{note[0]['id']}",
                              {"content": note[0]["content"]})]
    assert delivery_files(engine) == [f"{did}.md"]


def test_a_5xx_on_close_is_named_and_the_next_call_lands_it(
        td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, fake, ids = td
    fake.fail(f"/tasks/{ids[1]}/close", method="POST", status=502)
    first = engine.set_status("TD-2", "done")
    missed = first["writeback"]["not_landed"]
    assert [(m["step"], m["code"]) for m in missed] == [("status", "server-error")]
    assert ids[1] not in fake.closed
    second = engine.set_status("TD-2", "done")
    assert second["writeback"]["not_landed"] == [] and ids[1] in fake.closed


def test_a_persons_comment_is_never_edited(td: tuple[Engine, FakeTodoist, list[str]]) -> None:
    engine, fake, ids = td
    before = dict(fake.notes_on(ids[0])[0])
    engine.set_status("TD-1", "done", verdicts=DONE_VERDICTS)
    assert fake.notes_on(ids[0])[0] == before


def test_each_status_has_its_task_action() -> None:
    assert [task_action_for(s) for s in ("done", "ready", "in-progress", "discarded")] == [
        "close", "reopen", None, None]


def test_the_claim_note_is_one_comment_edited_in_place() -> None:
    fake = FakeTodoist()
    with serving(fake):
        task = fake.add_task("Offline sync")["id"]
        writer = TodoistWriter(TodoistSettings(name="app", project="App", prefix="TD",
                                               api_url=fake.api_url), environ={})
        item = RemoteItem("TD-1", "todoist/app", task, "story")
        marker = "<!-- revetly:claim TD-1 -->"
        try:
            posted = writer.keep_claim(item, f"held\n\n{marker}\n", held=True)
            fresh = TodoistWriter(writer.settings, environ={})  # finds it by its marker
            edited = fresh.keep_claim(item, f"released\n\n{marker}\n", held=False)
            fresh.close()
        finally:
            writer.close()
    assert (posted.action, edited.action, edited.ref) == ("posted", "edited", posted.ref)
    assert [n["content"].split("\n")[0] for n in fake.notes_on(task)] == ["released"]
