"""A remote call that fails leaves the local record saying what did not land; the next call
lands it, editing (never duplicating) what a lost answer had already put on the tracker."""

from __future__ import annotations

import json

from revetly_core import Engine
from tests.core.writeback.conftest import DONE_VERDICTS, delivery_files
from tests.support.fake_github import FakeGitHub

ISSUE1 = "/repos/acme/app/issues/1"
CLAIM_MARKER = "<!-- revetly:claim GH-1 -->"


def _record(engine: Engine) -> dict[str, object]:
    data: dict[str, object] = json.loads(
        (engine.root / ".revetly" / "writeback" / "GH-1.json").read_text())
    return data


def _marked(fake: FakeGitHub, marker: str) -> list[dict[str, object]]:
    return [c for c in fake.comments_on(1) if marker in str(c["body"])]


def test_a_lost_answer_to_the_claim_post_is_edited_not_posted_again(
        gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    fake.fail(f"{ISSUE1}/comments", method="POST", disconnect=True, apply_first=True)
    first = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert first["claim"] is None
    assert "did not land" in first["claim_not_recorded"]
    assert [s["step"] for s in first["writeback"]["not_landed"]] == ["claim"]
    assert len(_marked(fake, CLAIM_MARKER)) == 1  # it landed; its answer did not
    fake.requests.clear()
    second = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert second["claim"]["by"] == "agent-7" and second["claim_note"]["action"] == "edited"
    assert [(r.method, r.path.rsplit("/", 2)[-2]) for r in fake.writes()] == [
        ("PATCH", "comments")]
    assert len(_marked(fake, CLAIM_MARKER)) == 1


def test_a_5xx_on_the_issue_is_named_and_the_next_call_lands_it(
        gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    fake.fail(ISSUE1, method="PATCH", status=502)
    first = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    missed = first["writeback"]["not_landed"]
    assert [(m["step"], m["code"]) for m in missed] == [("status", "server-error")]
    assert "502" in missed[0]["detail"]
    assert first["claim_note"]["action"] == "posted"  # the other steps still ran
    steps = {s["step"]: s for s in _record(engine)["steps"]}  # type: ignore[attr-defined]
    assert steps["status"]["state"] == "not_landed" and steps["claim"]["state"] == "landed"
    assert "in-progress" not in fake.label_names(1)
    second = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert second["writeback"]["not_landed"] == []
    assert [s["step"] for s in second["writeback"]["landed"]] == ["status"]
    assert "in-progress" in fake.label_names(1) and len(_marked(fake, CLAIM_MARKER)) == 1


def test_a_dropped_delivery_note_lands_on_the_retry_with_no_second_delivery(
        gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    fake.fail(f"{ISSUE1}/comments", method="POST", disconnect=True)
    first = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    did = first["delivery"]["artifact_id"]
    assert "delivery_note" not in first and first["commit"] is not None
    assert [s["step"] for s in first["writeback"]["not_landed"]] == ["delivery_note"]
    assert fake.items[1]["state"] == "closed"  # the status landed
    second = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    assert second["unchanged"] is True and second["delivery"]["artifact_id"] == did
    assert second["delivery_note"]["action"] == "posted" and second["commit"] is None
    assert delivery_files(engine) == [f"{did}.md"]
    assert len(_marked(fake, f"<!-- revetly:delivery {did} -->")) == 1
    third = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    assert third["writeback"]["landed"] == [] and len(fake.comments_on(1)) == 2


def test_an_unlanded_delivery_note_is_carried_by_the_next_status(
        gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    fake.fail(f"{ISSUE1}/comments", method="POST", status=500)
    first = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    did = first["delivery"]["artifact_id"]
    fake.touch(1, state="open", state_reason="reopened")
    engine.sync()
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert len(_marked(fake, f"<!-- revetly:delivery {did} -->")) == 1
    assert len(_marked(fake, CLAIM_MARKER)) == 1


def test_a_refused_write_is_not_landed_and_never_a_crash(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    fake.fail(ISSUE1, method="PATCH", status=403, times=5,
              body=b'{"message": "Resource not accessible by integration"}')
    out = engine.set_status("GH-1", "ready")
    missed = out["writeback"]["not_landed"]
    assert missed[0]["code"] == "refused" and "not accessible" in missed[0]["detail"]
    assert "check the token" in missed[0]["detail"] and out["wrote"] is False


def test_check_names_what_did_not_land_until_it_does(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    fake.fail(ISSUE1, method="PATCH", status=502)
    engine.set_status("GH-1", "ready")
    found = [p for p in engine.check()["problems"] if p["code"] == "writeback-not-landed"]
    assert len(found) == 1 and found[0]["id"] == "GH-1"
    assert "status (server-error)" in found[0]["detail"] and found[0]["severity"] == "warning"
    assert engine.check()["ok"] is True  # a warning: nothing in the instance is broken
    engine.set_status("GH-1", "ready")
    assert not [p for p in engine.check()["problems"] if p["code"] == "writeback-not-landed"]
