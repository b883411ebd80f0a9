"""The review page's answer applied by core: the signed-in person's principal, decided_via url,
the served approver floor, grants; and what the page shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.auth import AuditLog, Caller, ServedSurface
from revetly_core.auth.review_decision import (
    check_page_decision,
    decide_on_page,
    decision_recorded,
    outside_grant_refusal,
    page_view,
    still_waiting,
)

from revetly_core import Engine, Refusal

ISS = "https://auth.example/"
ANA = Caller({"sub": "u-ana", "iss": ISS, "name": "Ana"})
BO = Caller({"sub": "u-bo", "iss": ISS, "name": "Bo", "groups": ["finance"]})
ROBOT = Caller({"sub": "ci", "iss": ISS, "client_id": "ci", "gty": "client_credentials"})
DRAFT = {"title": "Ledger export", "description": "Nightly.",
         "acceptance_criteria": ["a CSV lands nightly"]}


@pytest.fixture()
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setenv("REVETLY_ACTOR", "Server Env Person")
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    for name in ("REVETLY_REVIEWER", "REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "inst"
    Engine.init(root)
    e = Engine.open(root)
    e.sync()
    e.capture_mode = "none"
    return e


def drafted(engine: Engine) -> tuple[ServedSurface, str]:
    """A review ana's token raised on the endpoint."""
    surface = ServedSurface(engine, caller=lambda: ANA)
    answer = surface.call("submit_draft", DRAFT)
    return surface, str(answer["review_id"])


def test_the_page_answers_approve_reject_or_withdraw_only() -> None:
    assert [check_page_decision(d) for d in ("approve", "reject", "withdraw")] == [
        "approve", "reject", "withdraw"]
    with pytest.raises(Refusal) as caught:
        check_page_decision("maybe")
    assert caught.value.code == "bad-argument"


def test_an_approval_on_the_page_is_the_signed_in_persons_via_url(engine: Engine) -> None:
    surface, review_id = drafted(engine)
    done = decide_on_page(surface, BO, review_id, "approve", "fine")
    assert done["status"] == "applied" and decision_recorded(done)
    assert done["decided_via"] == "url" and done["decided_by"]["name"] == "u-bo"
    assert done["decided_channel"] == "another-session" and done["decision_gate_enforced"]


def test_the_drafters_own_sign_in_cannot_approve_and_the_review_waits(engine: Engine) -> None:
    surface, review_id = drafted(engine)
    refused = decide_on_page(surface, ANA, review_id, "approve")
    assert refused["refusal"]["rule"] == "self-approval" and not decision_recorded(refused)
    assert engine.review_state(review_id)["status"] == "pending"


def test_a_machine_token_signed_in_on_the_page_never_approves(engine: Engine) -> None:
    surface, review_id = drafted(engine)
    refused = decide_on_page(surface, ROBOT, review_id, "approve")
    assert refused["refusal"]["rule"] == "machine-actor"


def test_reject_and_withdraw_on_the_page_close_the_review(engine: Engine) -> None:
    surface, first = drafted(engine)
    _, second = drafted(engine)
    rejected = decide_on_page(surface, BO, first, "reject", "later")
    assert rejected["decision"] == "reject" and rejected["reason"] == "later"
    withdrawn = decide_on_page(surface, BO, second, "withdraw", "")
    assert withdrawn["status"] == "withdrawn" and withdrawn["reason"] is None
    assert decision_recorded(rejected) and decision_recorded(withdrawn)


def test_a_second_answer_finds_the_review_closed_and_spends_the_link(engine: Engine) -> None:
    surface, review_id = drafted(engine)
    decide_on_page(surface, BO, review_id, "reject")
    again = decide_on_page(surface, BO, review_id, "approve")
    assert again["answered_now"] is False and decision_recorded(again)


def test_the_pages_decision_leaves_its_audit_line(engine: Engine, tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    surface = ServedSurface(engine, caller=lambda: ANA, audit=log)
    review_id = surface.call("submit_draft", DRAFT)["review_id"]
    decide_on_page(surface, BO, review_id, "reject")
    assert [(x["sub"], x["tool"]) for x in log.lines()] == [
        ("u-ana", "submit_draft"), ("u-bo", "resolve_review")]


def test_the_page_shows_the_whole_draft_while_it_waits(engine: Engine) -> None:
    surface, review_id = drafted(engine)
    view = page_view(surface, BO, review_id)
    assert view["draft"]["title"] == "Ledger export" and still_waiting(view)
    decide_on_page(surface, BO, review_id, "reject")
    assert not still_waiting(page_view(surface, BO, review_id))
    assert not still_waiting(page_view(surface, BO, "REV-ffffffffffffffff"))


def test_a_person_outside_the_reviews_grant_neither_reads_nor_answers(
        engine: Engine) -> None:
    surface, review_id = drafted(engine)
    config = engine.root / "revetly.toml"
    config.write_text(config.read_text() + '\n[auth.grants]\nclaim = "groups"\n'
                      '[auth.grants.values]\nfinance = ["inst"]\n')
    granted = Engine.open(engine.root)
    granted.capture_mode = "none"
    surface = ServedSurface(granted, caller=lambda: ANA)
    outsider = Caller({"sub": "u-cy", "iss": ISS, "groups": ["sales"]})
    assert outside_grant_refusal(surface, BO, "inst") is None
    assert page_view(surface, outsider, review_id)["refusal"]["code"] == "outside-grant"
    refused = decide_on_page(surface, outsider, review_id, "reject")
    assert refused["refusal"]["code"] == "outside-grant"
    assert granted.review_state(review_id)["status"] == "pending"
