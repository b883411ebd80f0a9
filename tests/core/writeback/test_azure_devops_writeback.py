"""The Azure DevOps write adapter end to end: set_status on a work item, each request asserted
as the fake Azure DevOps received it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from revetly_core.connectors.azure_devops import basic_auth
from revetly_core.refusal import Refusal

from revetly_core import Engine
from tests.core.connectors.azure_devops_instance import TOKEN, TOKEN_ENV, azure_devops_instance
from tests.core.writeback.conftest import DONE_VERDICTS, delivery_files, reopen_engine
from tests.support.fake_azure_devops import FakeAzureDevOps, serving

BASE = "/fabrikam/Fabrikam Web/_apis/wit"
ITEM1 = f"{BASE}/workitems/1"
COMMENTS1 = f"{BASE}/workItems/1/comments"
CLAIM_MARKER = "<!-- revetly:claim ADO-1 -->"
CRITERIA = "<ul><li>Edits made offline sync</li><li>Conflicts are shown</li></ul>"


@pytest.fixture()
def ado(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ) -> Iterator[tuple[Engine, FakeAzureDevOps]]:
    """An instance reading Fabrikam Web (ADO-1 a story with two criteria, ADO-2 a bug, ADO-3
    a test plan, whose type has no InProgress state), synced."""
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    for name in ("REVETLY_REVIEWER", "REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY",
                 "REVETLY_CRASH_AT"):
        monkeypatch.delenv(name, raising=False)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "Offline sync", description="<div>Keep offline edits.</div>",
                      acceptance_criteria=CRITERIA)
        fake.add_item(2, "Crash on empty queue", work_item_type="Bug")
        fake.add_item(3, "Release sign-off", work_item_type="Test Plan", state="Design")
        fake.add_comment(1, "A person's comment, never edited by Revetly.", author="Ana Lee")
        engine = azure_devops_instance(
            tmp_path, fake.url,
            types='story = ["User Story", "Test Plan", "Feature"]\nbug = ["Bug"]\n')
        engine.capture_mode = "none"
        engine.sync()
        yield engine, fake


def _writes(fake: FakeAzureDevOps) -> list[tuple[str, str, object]]:
    return [(r.method, r.path, r.body) for r in fake.writes()]


def _claim_comments(fake: FakeAzureDevOps) -> list[dict[str, Any]]:
    return [c for c in fake.comments_on(1) if CLAIM_MARKER in str(c["text"])]


def _state(value: str) -> list[dict[str, str]]:
    return [{"op": "add", "path": "/fields/System.State", "value": value}]


def test_in_progress_moves_to_the_first_in_progress_state_and_posts_one_claim_comment(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    out = engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    note = fake.comments_on(1)[-1]
    assert _writes(fake) == [("PATCH", ITEM1, _state("Active")),
                             ("POST", COMMENTS1, {"text": note["text"]})]
    assert fake.items[1].fields["System.State"] == "Active"
    assert (out["status"], out["wrote"], out["did"]) == ("in-progress", True, "flip")
    assert out["claim"]["by"] == "agent-7"
    assert out["claim_note"] == {"step": "claim", "action": "posted", "ref": str(note["id"]),
                                 "url": note["url"]}
    assert out["writeback"]["not_landed"] == []
    assert note["format"] == "markdown"
    assert "agent-7" in note["text"] and note["text"].rstrip().endswith(CLAIM_MARKER)


def test_every_write_carries_the_pat_and_the_json_patch_type(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    writes = fake.writes()
    assert writes and all(r.headers.get("authorization") == basic_auth(TOKEN) for r in writes)
    assert writes[0].headers["content-type"] == "application/json-patch+json"
    assert writes[0].query["api-version"] == "7.1"
    assert writes[1].query == {"format": "markdown", "api-version": "7.1-preview.4"}


def test_a_takeover_edits_the_one_claim_comment_in_place(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    cid = _claim_comments(fake)[0]["id"]
    fake.requests.clear()
    out = engine.set_status("ADO-1", "in-progress", claimed_by="agent-9",
                            reason="agent-7 stopped answering")
    assert out["claim_outcome"] == "takeover" and out["claim_note"]["action"] == "edited"
    assert ("PATCH", f"{COMMENTS1}/{cid}") in [(m, p) for m, p, _ in _writes(fake)]
    comments = _claim_comments(fake)
    assert len(comments) == 1 and "Taken over from agent-7" in comments[0]["text"]


def test_done_closes_releases_and_posts_the_delivery_note(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    cid = _claim_comments(fake)[0]["id"]
    fake.requests.clear()
    out = engine.set_status("ADO-1", "done", verdicts=DONE_VERDICTS)
    did = out["delivery"]["artifact_id"]
    delivery = fake.comments_on(1)[-1]
    assert _writes(fake) == [
        ("PATCH", ITEM1, _state("Closed")),
        ("PATCH", f"{COMMENTS1}/{cid}", {"text": _claim_comments(fake)[0]["text"]}),
        ("POST", COMMENTS1, {"text": delivery["text"]}),
    ]
    assert (out["did"], out["claim"], fake.items[1].fields["System.State"]) == (
        "flip+delivery", None, "Closed")
    assert out["delivery_note"]["action"] == "posted" and delivery_files(engine) == [f"{did}.md"]
    assert f"<!-- revetly:delivery {did} -->" in delivery["text"]
    assert "1. Edits made offline sync — **met**" in delivery["text"]
    assert "2. Conflicts are shown — **partial**" in delivery["text"]
    assert "No longer in progress" in _claim_comments(fake)[0]["text"]


def test_ready_and_discarded_move_to_their_categories_first_state(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    engine.set_status("ADO-2", "in-progress", claimed_by="agent-7")
    engine.set_status("ADO-2", "ready")
    assert fake.items[2].fields["System.State"] == "New"
    engine.set_status("ADO-1", "discarded", reason="out of scope")
    assert fake.items[1].fields["System.State"] == "Removed"


def test_a_type_without_an_in_progress_state_is_refused_by_name_before_any_request(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    sent = len(fake.requests)
    with pytest.raises(Refusal) as exc:
        engine.set_status("ADO-3", "in-progress", claimed_by="agent-7")
    assert exc.value.code == "tracker-cannot-hold"
    assert "'Test Plan'" in exc.value.detail and "InProgress" in exc.value.detail
    assert exc.value.extra["work_item_type"] == "Test Plan"
    assert len(fake.requests) == sent


@pytest.mark.parametrize("status", ["parked", "draft"])
def test_a_status_azure_devops_cannot_hold_is_refused_before_any_request(
        ado: tuple[Engine, FakeAzureDevOps], status: str) -> None:
    engine, fake = ado
    sent = len(fake.requests)
    with pytest.raises(Refusal) as exc:
        engine.set_status("ADO-1", status)
    assert exc.value.code == "tracker-cannot-hold" and status in exc.value.detail
    assert len(fake.requests) == sent


def test_the_types_first_in_progress_state_is_its_own_order_not_the_alphabet(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    fake.states["Feature"] = [("New", "Proposed"), ("Committed", "InProgress"),
                              ("Active", "InProgress"), ("Done", "Completed")]
    fake.add_item(4, "Offline banner", work_item_type="Feature")
    engine.sync()  # the types' states the first pass learnt come back from the cursor
    fake.add_item(5, "Offline toast", work_item_type="Feature")
    engine.sync()
    for n in (4, 5):
        meta = engine.get_artifact(f"ADO-{n}", history_after="")["metadata"]
        assert meta["category_states"]["InProgress"] == "Committed"


def test_a_person_s_comment_is_never_edited(ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    before = dict(fake.comments_on(1)[0])
    engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    engine.set_status("ADO-1", "done", verdicts=DONE_VERDICTS)
    assert fake.comments_on(1)[0] == before


def test_tracker_note_false_ships_without_a_note(ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    engine = reopen_engine(engine, "\n[backend]\ntracker_note = false\n")
    out = engine.set_status("ADO-1", "done", verdicts=DONE_VERDICTS)
    assert "delivery_note" not in out and out["delivery"]["artifact_id"]
    assert [m for m, _, _ in _writes(fake)] == ["PATCH"]


def test_a_5xx_on_the_work_item_is_named_and_the_next_call_lands_it(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    fake.fail(ITEM1, method="PATCH", status=502)
    first = engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    missed = first["writeback"]["not_landed"]
    assert [(m["step"], m["code"]) for m in missed] == [("status", "server-error")]
    assert first["claim_note"]["action"] == "posted"
    record = json.loads((engine.root / ".revetly" / "writeback" / "ADO-1.json").read_text())
    steps = {s["step"]: s["state"] for s in record["steps"]}
    assert (steps["status"], steps["claim"]) == ("not_landed", "landed")
    assert fake.items[1].fields["System.State"] == "New"
    second = engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    assert second["writeback"]["not_landed"] == []
    assert fake.items[1].fields["System.State"] == "Active" and len(_claim_comments(fake)) == 1


def test_a_lost_answer_to_the_claim_post_is_edited_not_posted_again(
        ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    fake.fail(COMMENTS1, method="POST", disconnect=True, apply_first=True)
    first = engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    assert first["claim"] is None and "did not land" in first["claim_not_recorded"]
    assert len(_claim_comments(fake)) == 1  # it landed; its answer did not
    fake.requests.clear()
    second = engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    assert second["claim"]["by"] == "agent-7" and second["claim_note"]["action"] == "edited"
    assert [m for m, _, _ in _writes(fake)] == ["PATCH"]
    assert len(_claim_comments(fake)) == 1


def test_the_claim_comment_is_found_on_a_later_page(ado: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = ado
    for n in range(250):
        fake.add_comment(1, f"Chatter {n}.")
    engine.set_status("ADO-1", "in-progress", claimed_by="agent-7")
    engine = reopen_engine(engine, "")  # a new adapter: the comment is looked for again
    fake.requests.clear()
    engine.set_status("ADO-1", "in-progress", claimed_by="agent-9", reason="a takeover")
    pages = [r.query.get("continuationToken") for r in fake.requests
             if r.method == "GET" and r.path == COMMENTS1]
    assert pages == [None, "200"]
    cid = _claim_comments(fake)[0]["id"]
    assert [(m, p) for m, p, _ in _writes(fake)] == [("PATCH", ITEM1),
                                                     ("PATCH", f"{COMMENTS1}/{cid}")]
    assert len(_claim_comments(fake)) == 1 and "agent-9" in _claim_comments(fake)[0]["text"]
