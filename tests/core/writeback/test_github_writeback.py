"""The GitHub write adapter end to end: set_status on an issue, each request asserted as the
fake GitHub received it."""

from __future__ import annotations

import pytest
from revetly_core.refusal import Refusal

from revetly_core import Engine
from tests.core.connectors.github_instance import TOKEN
from tests.core.writeback.conftest import DONE_VERDICTS, delivery_files, reopen_engine
from tests.support.fake_github import FakeGitHub

ISSUE1 = "/repos/acme/app/issues/1"
CLAIM_MARKER = "<!-- revetly:claim GH-1 -->"


def _writes(fake: FakeGitHub) -> list[tuple[str, str, object]]:
    return [(r.method, r.path, r.body) for r in fake.writes()]


def _claim_comments(fake: FakeGitHub) -> list[dict[str, object]]:
    return [c for c in fake.comments_on(1) if CLAIM_MARKER in str(c["body"])]


def test_in_progress_opens_labels_and_posts_one_claim_comment(
        gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    note = fake.comments_on(1)[-1]
    assert _writes(fake) == [
        ("PATCH", ISSUE1, {"state": "open"}),
        ("POST", f"{ISSUE1}/labels", {"labels": ["in-progress"]}),
        ("POST", f"{ISSUE1}/comments", {"body": note["body"]}),
    ]
    assert (out["status"], out["wrote"], out["did"], out["commit"]) == (
        "in-progress", True, "flip", None)
    assert out["claim"]["by"] == "agent-7" and out["claim_outcome"] == "new"
    assert out["claim_note"] == {"step": "claim", "action": "posted", "ref": str(note["id"]),
                                 "url": note["html_url"]}
    assert out["writeback"]["not_landed"] == []
    assert fake.label_names(1) == ["story", "in-progress"]
    assert "agent-7" in str(note["body"]) and str(note["body"]).rstrip().endswith(CLAIM_MARKER)


def test_the_token_goes_with_every_write_to_the_api_origin(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert fake.writes() and all(r.headers.get("authorization") == f"Bearer {TOKEN}"
                                 for r in fake.writes())


def test_the_same_claimant_again_sends_nothing(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    first = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    sent = len(fake.requests)
    again = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert len(fake.requests) == sent
    assert again["unchanged"] is True and again["claim"] == first["claim"]
    assert again["claim_note"] == first["claim_note"]


def test_a_second_claimant_is_refused_before_any_request(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    sent = len(fake.requests)
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-9")
    assert (out["status"], out["code"], out["holder"]) == ("refused", "claimed", "agent-7")
    assert len(fake.requests) == sent


def test_a_takeover_edits_the_one_claim_comment_in_place(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    cid = _claim_comments(fake)[0]["id"]
    fake.requests.clear()
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-9",
                            reason="agent-7 stopped answering")
    assert out["claim_outcome"] == "takeover" and out["claim_note"]["action"] == "edited"
    assert ("PATCH", f"/repos/acme/app/issues/comments/{cid}") in [
        (m, p) for m, p, _ in _writes(fake)]
    comments = _claim_comments(fake)
    assert len(comments) == 1 and "agent-9" in str(comments[0]["body"])
    assert "Taken over from agent-7" in str(comments[0]["body"])


def test_done_closes_releases_and_posts_the_delivery_note(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    cid = _claim_comments(fake)[0]["id"]
    fake.requests.clear()
    out = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    did = out["delivery"]["artifact_id"]
    delivery_comment = fake.comments_on(1)[-1]
    assert _writes(fake) == [
        ("PATCH", ISSUE1, {"state": "closed", "state_reason": "completed"}),
        ("DELETE", f"{ISSUE1}/labels/in-progress", None),
        ("PATCH", f"/repos/acme/app/issues/comments/{cid}",
         {"body": _claim_comments(fake)[0]["body"]}),
        ("POST", f"{ISSUE1}/comments", {"body": delivery_comment["body"]}),
    ]
    assert (out["did"], out["claim"], fake.items[1]["state"]) == ("flip+delivery", None,
                                                                  "closed")
    assert out["delivery_note"]["action"] == "posted"
    assert out["commit"] is not None and delivery_files(engine) == [f"{did}.md"]
    body = str(delivery_comment["body"])
    assert f"<!-- revetly:delivery {did} -->" in body
    assert "1. Edits made offline sync — **met**" in body
    assert "2. Conflicts are shown — **partial**" in body
    assert "No longer in progress" in str(_claim_comments(fake)[0]["body"])
    assert fake.label_names(1) == ["story"]


def test_tracker_note_false_ships_without_a_note(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine = reopen_engine(engine, "\n[backend]\ntracker_note = false\n")
    out = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    assert "delivery_note" not in out and out["delivery"]["artifact_id"]
    assert [m for m, _, _ in _writes(fake)] == ["PATCH"]
    assert len(fake.comments_on(1)) == 1  # the person's comment alone


def test_ready_takes_the_label_off_and_releases_the_claim(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    out = engine.set_status("GH-1", "ready")
    assert out["claim"] is None and fake.label_names(1) == ["story"]
    assert fake.items[1]["state"] == "open"
    assert [s["action"] for s in out["writeback"]["landed"]] == ["set", "released"]


def test_discarded_closes_as_not_planned(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-2", "discarded", reason="cannot reproduce")
    assert (fake.items[2]["state"], fake.items[2]["state_reason"]) == ("closed", "not_planned")


@pytest.mark.parametrize("status", ["parked", "draft"])
def test_a_status_github_cannot_hold_is_refused_before_any_request(
        gh: tuple[Engine, FakeGitHub], status: str) -> None:
    engine, fake = gh
    sent = len(fake.requests)
    with pytest.raises(Refusal) as exc:
        engine.set_status("GH-1", status)
    assert exc.value.code == "tracker-cannot-hold" and status in exc.value.detail
    assert exc.value.extra["wrote"] is False and len(fake.requests) == sent


def test_a_persons_comment_is_never_edited(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    before = dict(fake.comments_on(1)[0])
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    assert fake.comments_on(1)[0] == before


def test_a_reopened_issue_ships_again_with_a_new_delivery(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    first = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    fake.touch(1, state="open", state_reason="reopened")
    engine.sync()
    again = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    assert "unchanged" not in again
    assert again["delivery"]["artifact_id"] != first["delivery"]["artifact_id"]
    assert len(delivery_files(engine)) == 2


def test_the_claim_comment_is_found_past_the_first_page(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    for n in range(120):
        fake.add_comment(1, f"chatter {n}")
    fake.requests.clear()
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-9", reason="agent-7 left")
    assert out["claim_note"]["action"] == "edited" and len(_claim_comments(fake)) == 1
    pages = [r.query.get("page", "1") for r in fake.requests
             if r.method == "GET" and r.path.endswith("/1/comments")]
    assert pages == ["1", "2"]


def test_one_listing_serves_every_note_of_a_write(gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    fake.requests.clear()
    engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    assert [r.method for r in fake.requests if r.path.endswith("/1/comments")] == ["GET", "POST"]
