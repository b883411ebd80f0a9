"""RuleLifecycle: qualification attempts, activation receipts, shadow/suspend/revoke, rollback, use."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from revetly_core.governed.lifecycle import LIFECYCLE, MAX_DIAGNOSTIC_ATTEMPTS, transition_allowed

from revetly_core import DiagnosticQualifier, Refusal, RuleLifecycle
from tests.core.gitrepo import Instance, md
from tests.core.governed.governed_world import START
from tests.core.governed.proposal_world import (
    FailingQualifier,
    ProposalWorld,
    TrustedQualifier,
    active_rule,
    approved_rule,
    make_proposal_world,
    refund_rule,
    reply_profile,
)

WEEK = START + timedelta(days=7)
LARGE = {"tier": "large", "amount": 900}


@pytest.fixture()
def w(instance: Instance, tmp_path: Path) -> Iterator[ProposalWorld]:
    world = make_proposal_world(instance, tmp_path / "homes")
    yield world
    world.close()


def qualify(w: ProposalWorld, rule_id: str, key: str, qualifier: object = None) -> dict:  # type: ignore[type-arg]
    return w.lifecycle.qualify(w.owner, w.scope, rule_id, qualifier or TrustedQualifier(),  # type: ignore[arg-type]
                               idempotency_key=key, expires_at=WEEK)


def test_qualification_needs_an_approved_review(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_rule(w.session, refund_rule(), "p-1")
    with pytest.raises(Refusal) as refused:
        qualify(w, receipt["proposal_id"], "q-1")
    assert refused.value.code == "not-reviewed"


def test_the_diagnostic_qualifier_is_always_inconclusive_and_cannot_activate(w: ProposalWorld) -> None:
    rule_id = approved_rule(w)
    answer = qualify(w, rule_id, "q-1", DiagnosticQualifier())
    assert answer["qualification"]["verdict"] == "inconclusive"
    with pytest.raises(Refusal) as refused:
        w.lifecycle.activate(w.owner, w.scope, rule_id, answer["qualification"]["qualification_id"])
    assert refused.value.code == "activation-checks-failed" and "inconclusive" in refused.value.detail


def test_a_diagnostic_qualifier_claiming_acceptance_is_kept_inconclusive(w: ProposalWorld) -> None:
    class Boastful(TrustedQualifier):
        kind = "diagnostic"

    answer = qualify(w, approved_rule(w), "q-1", Boastful())
    assert answer["qualification"]["answered"] == "accepted"
    assert answer["qualification"]["verdict"] == "inconclusive"


def test_a_failed_attempt_stays_charged_and_a_retry_returns_it_without_running(w: ProposalWorld) -> None:
    rule_id = approved_rule(w)
    failing = FailingQualifier()
    first = qualify(w, rule_id, "q-1", failing)
    assert first["status"] == "failed" and first["charged"] and first["attempts_charged"] == 1
    assert first["error"] == "RuntimeError" and "harness" not in str(first)
    assert qualify(w, rule_id, "q-1", failing) == first
    assert failing.calls == 1


def test_attempts_are_reserved_before_the_qualifier_runs(w: ProposalWorld) -> None:
    rule_id = approved_rule(w)
    seen: list[int] = []

    class Watching(TrustedQualifier):
        def qualify(self, proposal, runtime_versions):  # type: ignore[no-untyped-def]
            records = w.evidence.records(w.scope.partition(LIFECYCLE), "attempt")
            seen.append(len(records))
            return super().qualify(proposal, runtime_versions)

    qualify(w, rule_id, "q-1", Watching())
    assert seen == [2]  # the counter link and the attempt, both kept before the run


def test_the_attempt_budget_counts_failures_and_then_refuses(w: ProposalWorld) -> None:
    rule_id = approved_rule(w)
    failing = FailingQualifier()
    for n in range(MAX_DIAGNOSTIC_ATTEMPTS):
        qualify(w, rule_id, f"q-{n}", failing)
    with pytest.raises(Refusal) as refused:
        qualify(w, rule_id, "q-last", TrustedQualifier())
    assert refused.value.code == "diagnostic-budget-exhausted"
    assert failing.calls == MAX_DIAGNOSTIC_ATTEMPTS


def test_activation_appends_a_versioned_encrypted_receipt(w: ProposalWorld) -> None:
    rule_id, qualification_id = active_rule(w)
    current = w.lifecycle.current(w.scope, rule_id)
    assert current is not None
    assert current["kind"] == "activation_receipt" and current["version"] == 1
    assert current["generation"] == 1 and current["state"] == "active"
    assert current["qualification_id"] == qualification_id
    assert current["runtime_versions"] == {"rule_format": "1", "app": "1.0"}
    raw = (w.evidence.home.database).read_bytes()
    assert b"activation_receipt" not in raw and b"issue_refund" not in raw


def test_an_active_rule_decides_calls_and_a_native_veto_wins(w: ProposalWorld) -> None:
    active_rule(w)
    assert w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["decision"] == "deny"
    reasoned = {**LARGE, "reason": "x"}
    assert w.lifecycle.evaluate(w.scope, "issue_refund", reasoned)["decision"] == "needs_approval"
    assert w.lifecycle.evaluate(w.scope, "issue_refund", {**LARGE, "reason": "x"},
                                approved=True)["decision"] == "allow"
    assert w.lifecycle.evaluate(w.scope, "issue_refund", {"tier": "small"})["decision"] == "allow"
    vetoed = w.lifecycle.evaluate(w.scope, "issue_refund", {"tier": "small"}, native_veto=True)
    assert vetoed["decision"] == "deny"


def test_shadow_evaluates_without_enforcing_and_suspend_stops_it(w: ProposalWorld) -> None:
    rule_id, _ = active_rule(w)
    w.lifecycle.shadow(w.owner, w.scope, rule_id, reason="watch it first")
    shadowed = w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)
    assert shadowed["decision"] == "allow" and shadowed["rules"][0]["decision"] == "deny"
    assert shadowed["rules"][0]["state"] == "shadow"
    w.lifecycle.suspend(w.owner, w.scope, rule_id)
    assert w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["rules"] == []


def test_revoke_is_terminal_even_for_rollback(w: ProposalWorld) -> None:
    rule_id, qualification_id = active_rule(w)
    w.lifecycle.revoke(w.owner, w.scope, rule_id, reason="no longer wanted")
    for call in (lambda: w.lifecycle.activate(w.owner, w.scope, rule_id, qualification_id),
                 lambda: w.lifecycle.rollback(w.owner, w.scope, rule_id, 1),
                 lambda: w.lifecycle.shadow(w.owner, w.scope, rule_id)):
        with pytest.raises(Refusal) as refused:
            call()
        assert refused.value.code == "rule-revoked"
    assert w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["decision"] == "allow"


def test_rollback_copies_an_exact_earlier_active_generation(w: ProposalWorld) -> None:
    rule_id, first_q = active_rule(w)
    second_q = qualify(w, rule_id, "q-2")["qualification"]["qualification_id"]
    w.lifecycle.activate(w.owner, w.scope, rule_id, second_q)
    w.lifecycle.suspend(w.owner, w.scope, rule_id)
    rolled = w.lifecycle.rollback(w.owner, w.scope, rule_id, 1)
    assert rolled["generation"] == 4 and rolled["state"] == "active"
    assert rolled["rolled_back_to"] == 1 and rolled["qualification_id"] == first_q
    with pytest.raises(Refusal) as refused:
        w.lifecycle.rollback(w.owner, w.scope, rule_id, 3)  # the suspended generation
    assert refused.value.code == "no-generation"


def test_rollback_is_refused_when_its_qualification_expired(w: ProposalWorld) -> None:
    rule_id, _ = active_rule(w)
    w.lifecycle.suspend(w.owner, w.scope, rule_id)
    w.clock.advance(days=8)
    with pytest.raises(Refusal) as refused:
        w.lifecycle.rollback(w.owner, w.scope, rule_id, 1)
    assert refused.value.code == "activation-checks-failed" and "expired" in refused.value.detail


def test_rollback_is_refused_when_its_source_changed(w: ProposalWorld) -> None:
    rule_id, _ = active_rule(w)
    w.lifecycle.suspend(w.owner, w.scope, rule_id)
    w.instance.git.write_and_commit({"notes/DEC-0001.md": md(
        "DEC-0001", "Refund approvals", "decision", status="accepted", body="No approvals any more.\n")})
    w.instance.sync()
    with pytest.raises(Refusal) as refused:
        w.lifecycle.rollback(w.owner, w.scope, rule_id, 1)
    assert refused.value.code == "activation-checks-failed" and "DEC-0001" in refused.value.detail


def test_rollback_is_refused_under_other_runtime_versions(w: ProposalWorld) -> None:
    rule_id, _ = active_rule(w)
    w.lifecycle.suspend(w.owner, w.scope, rule_id)
    upgraded = RuleLifecycle(w.proposals, runtime_versions={"app": "2.0"})
    with pytest.raises(Refusal) as refused:
        upgraded.rollback(w.owner, w.scope, rule_id, 1)
    assert "runtime versions" in refused.value.detail


def test_an_active_rule_whose_checks_lapse_is_withheld_not_applied(w: ProposalWorld) -> None:
    rule_id, _ = active_rule(w)
    w.clock.advance(days=8)
    answer = w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)
    assert answer["decision"] == "allow" and answer["rules"] == []
    assert answer["withheld"][0]["rule_id"] == rule_id


def test_activation_is_idempotent_and_owner_only(w: ProposalWorld) -> None:
    rule_id, qualification_id = active_rule(w)
    again = w.lifecycle.activate(w.owner, w.scope, rule_id, qualification_id)
    assert again["replayed"] is True and again["generation"] == 1
    with pytest.raises(Refusal) as refused:
        w.lifecycle.suspend("rvo_someone", w.scope, rule_id)
    assert refused.value.code == "not_owner"


def test_a_profile_goes_through_the_same_lifecycle(w: ProposalWorld) -> None:
    receipt = w.proposals.propose_profile(w.session, reply_profile(), "pp-1")
    w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "approve", reviewer="Dana")
    q = qualify(w, receipt["proposal_id"], "q-p")["qualification"]["qualification_id"]
    record = w.lifecycle.activate(w.owner, w.scope, receipt["proposal_id"], q)
    assert record["settings"] == {"language": "en", "signed": True, "max_lines": 12}
    assert [r["rule_id"] for r in w.lifecycle.in_use(w.scope)] == [receipt["proposal_id"]]


@pytest.mark.parametrize(("current", "target", "checked", "allowed"), [
    (None, "active", True, True), (None, "shadow", True, True), ("suspended", "active", True, True),
    ("shadow", "active", True, True), ("revoked", "active", True, False),
    (None, "shadow", False, False), (None, "suspended", False, False), ("active", "shadow", False, True),
    ("shadow", "suspended", False, True), ("suspended", "shadow", False, False),
    ("suspended", "active", False, False), (None, "revoked", False, True), ("active", "revoked", False, True),
    ("revoked", "revoked", False, False)])
def test_the_transitions_a_lifecycle_permits(current: str | None, target: str, checked: bool,
                                             allowed: bool) -> None:
    assert transition_allowed(current, target, checked=checked) is allowed  # type: ignore[arg-type]


def test_shadowing_a_rule_never_activated_is_refused(w: ProposalWorld) -> None:
    rule_id = approved_rule(w)
    with pytest.raises(Refusal) as refused:
        w.lifecycle.shadow(w.owner, w.scope, rule_id)
    assert refused.value.code == "bad-transition"
    assert w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["rules"] == []
