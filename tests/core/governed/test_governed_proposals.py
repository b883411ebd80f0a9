"""Rule and profile proposals: canonical-memory binding, closed receipts, review by the engine's authority."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.writes.reviews import ReviewStore

from revetly_core import Engine, ProposalService, Refusal
from tests.core.gitrepo import Instance, md
from tests.core.governed.proposal_world import (
    DECISION,
    ProposalWorld,
    make_proposal_world,
    refund_rule,
    reply_profile,
)


@pytest.fixture()
def w(instance: Instance, tmp_path: Path) -> Iterator[ProposalWorld]:
    world = make_proposal_world(instance, tmp_path / "homes")
    yield world
    world.close()


def review_file(w: ProposalWorld, review_id: str) -> dict:  # type: ignore[type-arg]
    return json.loads((w.instance.root / ".revetly" / "reviews" / f"{review_id}.json").read_text())


def change_decision(w: ProposalWorld, words: str) -> None:
    w.instance.git.write_and_commit({
        "notes/DEC-0001.md": md("DEC-0001", "Refund approvals", "decision", status="accepted", body=words)})
    w.instance.sync()


def test_a_rule_proposal_answers_a_closed_receipt_and_opens_a_pending_rev_record(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    assert receipt["kind"] == "proposal_receipt" and receipt["version"] == 1
    assert receipt["status"] == "pending_review" and receipt["activation"] == "none"
    assert receipt["proposal_id"].startswith("prop-") and receipt["review_id"].startswith("REV-")
    text = json.dumps(receipt)
    assert DECISION.strip() not in text and "rationale" not in text
    assert receipt["sources"][0]["artifact_id"] == "DEC-0001"
    review = review_file(w, receipt["review_id"])
    assert review["status"] == "pending" and review["kind"] == "governed-rule"
    assert review["draft"]["proposal_id"] == receipt["proposal_id"]
    rows = w.engine.list_reviews()["reviews"]
    assert [r["review_id"] for r in rows] == [receipt["review_id"]]


def test_a_profile_proposal_is_its_own_kind(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_profile(w.session, reply_profile(), "p-1")
    assert receipt["proposal_kind"] == "profile"
    assert review_file(w, receipt["review_id"])["kind"] == "governed-profile"
    full = w.proposals.proposal(w.owner, w.scope, receipt["proposal_id"])
    assert full["compiled"] is None and full["candidate"]["settings"]["signed"] is True


def test_the_same_key_returns_the_original_and_another_candidate_conflicts(w: ProposalWorld) -> None:
    first = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    assert w.proposals.propose_rule(w.session, refund_rule(), "p-1") == first
    with pytest.raises(Refusal) as refused:
        w.proposals.propose_rule(w.session, refund_rule(title="Another"), "p-1")
    assert refused.value.code == "idempotency_conflict"
    assert w.proposals.proposals(w.owner, w.scope)["count"] == 1


def test_proposing_needs_the_propose_grant(instance: Instance, tmp_path: Path) -> None:
    world = make_proposal_world(instance, tmp_path / "homes", operations=("read",))
    with pytest.raises(Refusal) as refused:
        world.proposals.propose_rule(world.session, refund_rule(), "p-1")
    assert refused.value.code == "not_authorized"
    world.close()


def test_a_scope_of_another_tenant_is_refused_with_a_valid_credential(w: ProposalWorld) -> None:
    w.proposals.assign_tenant(w.owner, w.scope, "tenant-b")
    with pytest.raises(Refusal) as refused:
        w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    assert refused.value.code == "memory-tenant-mismatch"
    bound_b = ProposalService(w.feedback, w.engine, memory_tenant_id="tenant-b")
    assert bound_b.propose_rule(w.session, refund_rule(), "p-1")["status"] == "pending_review"


def test_a_source_the_memory_does_not_hold_is_refused(w: ProposalWorld) -> None:
    with pytest.raises(Refusal) as refused:
        w.proposals.propose_rule(
            w.session, refund_rule(sources=[{"kind": "memory", "artifact_id": "DEC-0099"}]), "p-1")
    assert refused.value.code == "no-memory-source"
    assert w.proposals.proposals(w.owner, w.scope)["count"] == 0


def test_a_sensitive_source_is_withheld_from_a_remote_binding_only(w: ProposalWorld) -> None:
    w.instance.git.write_and_commit({"notes/DEC-0003.md": md(
        "DEC-0003", "Salaries", "decision", status="accepted", sensitivity="restricted",
        body="Salary bands.\n")})
    w.instance.sync()
    sensitive = refund_rule(sources=[{"kind": "memory", "artifact_id": "DEC-0003"}])
    with pytest.raises(Refusal) as refused:
        w.proposals.propose_rule(w.session, sensitive, "p-1")
    assert refused.value.code == "source-withheld"
    local = ProposalService(w.feedback, w.engine, egress_class="local")
    assert local.propose_rule(w.session, sensitive, "p-1")["status"] == "pending_review"


def test_the_owner_approves_and_the_rev_record_is_answered(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    answer = w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "approve", reviewer="Dana",
                                reason="matches the refund decision")
    assert answer["status"] == "approved" and answer["activation"] == "none"
    review = review_file(w, receipt["review_id"])
    assert review["status"] == "applied" and review["decision"]["decided_by"]["name"] == "Dana"
    assert review["wrote"] is False
    assert w.proposals.propose_rule(w.session, refund_rule(), "p-1")["status"] == "approved"
    again = w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "reject", reviewer="Eve")
    assert again["status"] == "approved" and again["reviewer"] == "Dana"


def test_the_owner_rejects_and_the_reason_never_reaches_the_model(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "reject", reviewer="Dana",
                       reason="SECRET-REVIEW-NOTE")
    assert review_file(w, receipt["review_id"])["status"] == "resolved"
    retry = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    assert retry["status"] == "rejected" and "SECRET-REVIEW-NOTE" not in json.dumps(retry)


def test_a_proposal_whose_source_changed_between_proposal_and_review_is_refused(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    change_decision(w, "Refunds above 100 EUR need a second approver.\n")
    with pytest.raises(Refusal) as refused:
        w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "approve", reviewer="Dana")
    assert refused.value.code == "proposal-source-changed"
    assert "DEC-0001" in refused.value.detail
    review = review_file(w, receipt["review_id"])
    assert review["status"] == "refused" and review["refusal"]["code"] == "proposal-source-changed"
    assert w.proposals.propose_rule(w.session, refund_rule(), "p-1")["status"] == "refused"


def test_an_unrelated_change_of_the_context_does_not_refuse_the_review(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    w.instance.git.write_and_commit({"notes/DEC-0009.md": md("DEC-0009", "Other", "decision", body="x\n")})
    w.instance.sync()
    answer = w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "approve", reviewer="Dana")
    assert answer["status"] == "approved"


def test_a_rejection_needs_no_source_recheck(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    change_decision(w, "Changed words.\n")
    assert w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "reject",
                              reviewer="Dana")["status"] == "rejected"


def test_only_the_owner_reviews(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    with pytest.raises(Refusal) as refused:
        w.proposals.review("rvo_not-the-owner", w.scope, receipt["proposal_id"], "approve",
                           reviewer="Mallory")
    assert refused.value.code == "not_owner"


def test_the_engines_own_review_calls_refuse_a_governed_review(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    engine = Engine.open(w.instance.root)
    for call in (lambda: engine.resolve_review(receipt["review_id"], "approve"),
                 lambda: engine.withdraw_review(receipt["review_id"]),
                 lambda: engine.raise_review(receipt["review_id"]),
                 lambda: engine.review_pages(receipt["review_id"])):
        with pytest.raises(Refusal) as refused:
            call()
        assert refused.value.code == "governed-review"
    assert ReviewStore(w.instance.root, w.engine.paths.state).load(receipt["review_id"]).status == "pending"


def test_a_lost_rev_record_is_opened_again_by_a_retry(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    (w.instance.root / ".revetly" / "reviews" / f"{receipt['review_id']}.json").unlink()
    assert w.proposals.propose_rule(w.session, refund_rule(), "p-1") == receipt
    assert review_file(w, receipt["review_id"])["status"] == "pending"


def test_proposals_are_counted_in_the_operational_metrics(w: ProposalWorld) -> None:
    w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    with pytest.raises(Refusal):
        w.proposals.propose_profile(w.session, {"title": "x"}, "p-2")
    counters = w.feedback.operational_metrics(w.session)["operations"]
    assert counters["feedback_propose_rule"]["ok"] == 1
    assert counters["feedback_propose_profile"]["refused"] == 1


def test_the_owners_view_keeps_the_source_words_the_receipt_never_shows(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    full = w.proposals.proposal(w.owner, w.scope, receipt["proposal_id"])
    assert full["sources"][0]["words"] == DECISION.strip()
    assert "words" not in receipt["sources"][0]
    raw = w.evidence.home.database.read_bytes()
    assert b"second approver" not in raw  # kept encrypted
