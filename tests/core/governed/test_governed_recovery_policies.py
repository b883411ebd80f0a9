"""Forget and reconcile-restore wired to the rule lifecycle: dependent rules keep a source in
place until revoked, and a restore quarantines standing rules and profiles until fresh
qualification (real instance as canonical memory, real vault)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from revetly_core.governed.lifecycle import (
    quarantined_qualifications,
    standing_policies,
    transition_allowed,
)
from revetly_core.governed.recovery import policy_depends_on, require_no_dependent_policy
from revetly_core.governed.restore import reconcile_after_restore

from revetly_core import (
    FeedbackRecovery,
    RagQuery,
    RagService,
    Refusal,
    RevetlyContextAdapter,
)
from tests.core.gitrepo import Instance
from tests.core.governed.governed_world import START
from tests.core.governed.proposal_world import (
    ProposalWorld,
    TrustedQualifier,
    active_rule,
    approved_rule,
    make_proposal_world,
)

WEEK = START + timedelta(days=7)
LARGE = {"tier": "large", "amount": 900}
CONTEXT_SOURCE = {"source_id": "memory", "provider_id": "revetly-context"}


@pytest.fixture()
def w(instance: Instance, tmp_path: Path) -> Iterator[ProposalWorld]:
    world = make_proposal_world(instance, tmp_path / "homes", operations=("propose", "read", "search"))
    yield world
    world.close()


@pytest.fixture()
def served(w: ProposalWorld) -> Iterator[RagService]:
    """The canonical memory served as the scope's document source 'memory', searched once."""
    rag = RagService(w.feedback)
    adapter = RevetlyContextAdapter(w.engine)
    rag.register(w.owner, adapter.source("memory", w.scope), adapter)
    receipt = rag.search(w.session, RagQuery("memory", "refunds second approver finance"),
                         idempotency_key="s-1")
    assert "DEC-0001" in {h["document_id"] for h in receipt["hits"]}
    yield rag
    rag.close()


def qualify(w: ProposalWorld, rule_id: str, key: str) -> str:
    answer = w.lifecycle.qualify(w.owner, w.scope, rule_id, TrustedQualifier(), idempotency_key=key,
                                 expires_at=WEEK)
    return str(answer["qualification"]["qualification_id"])


# ---- the rules, one test each ----

def test_a_policy_depends_on_a_source_by_typed_links_only() -> None:
    memory_link = [{"kind": "memory", "artifact_id": "DEC-0001"}]
    assert policy_depends_on(memory_link, CONTEXT_SOURCE, {"DEC-0001"})
    assert not policy_depends_on(memory_link, CONTEXT_SOURCE, {"DEC-0002"})  # never served by it
    sqlite_source = {"source_id": "memory", "provider_id": "sqlite-vault"}
    assert not policy_depends_on(memory_link, sqlite_source, {"DEC-0001"})  # a document id is no artifact id
    assert policy_depends_on([{"kind": "rag", "source_id": "law"}], {"source_id": "law"}, set())
    assert not policy_depends_on([{"kind": "rag", "source_id": "law"}], {"source_id": "other"}, set())


def test_dependents_refuse_with_dependent_policy_requires_revocation() -> None:
    require_no_dependent_policy([], "law")
    with pytest.raises(Refusal) as refused:
        require_no_dependent_policy([{"rule_id": "prop-1", "proposal_kind": "rule", "state": "active"}],
                                    "law")
    assert refused.value.code == "dependent_policy_requires_revocation"
    assert refused.value.extra["dependents"][0]["rule_id"] == "prop-1"


def test_quarantine_is_reachable_from_every_state_but_revoked() -> None:
    for state in (None, "active", "shadow", "suspended", "quarantined"):
        assert transition_allowed(state, "quarantined", checked=False)  # type: ignore[arg-type]
    assert not transition_allowed("revoked", "quarantined", checked=False)
    assert transition_allowed("quarantined", "active", checked=True)
    assert not transition_allowed("quarantined", "shadow", checked=False)


def test_quarantined_qualifications_are_those_a_quarantine_generation_named() -> None:
    history = [{"state": "active", "qualification_id": "qual-a"},
               {"state": "quarantined", "quarantined_qualifications": ["qual-a", "qual-b"]}]
    assert quarantined_qualifications(history) == {"qual-a", "qual-b"}
    assert quarantined_qualifications(history[:1]) == set()


# ---- forget waits for explicit revocation ----

def test_forget_refuses_while_an_active_dependent_rule_stands(w: ProposalWorld, served: RagService) -> None:
    rule_id, _ = active_rule(w)
    recovery = FeedbackRecovery(served)
    for attempt in (lambda: recovery.preview_forget(w.owner, w.scope, "memory"),
                    lambda: recovery.forget(w.owner, w.scope, "memory", confirm="x" * 64)):
        with pytest.raises(Refusal) as refused:
            attempt()
        assert refused.value.code == "dependent_policy_requires_revocation"
        assert [d["rule_id"] for d in refused.value.extra["dependents"]] == [rule_id]
    assert served.registration("memory") is not None  # the source stays
    decision = w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)
    assert decision["decision"] == "deny"  # the guard is not turned off


def test_a_qualified_rule_not_yet_active_also_holds_the_source(w: ProposalWorld, served: RagService) -> None:
    rule_id = approved_rule(w)
    qualify(w, rule_id, "q-1")
    with pytest.raises(Refusal) as refused:
        FeedbackRecovery(served).preview_forget(w.owner, w.scope, "memory")
    assert refused.value.code == "dependent_policy_requires_revocation"
    assert refused.value.extra["dependents"][0]["state"] is None


def test_once_the_dependent_rule_is_revoked_forget_proceeds(w: ProposalWorld, served: RagService) -> None:
    rule_id, _ = active_rule(w)
    w.lifecycle.revoke(w.owner, w.scope, rule_id, reason="its source is to be forgotten")
    recovery = FeedbackRecovery(served)
    preview = recovery.preview_forget(w.owner, w.scope, "memory")
    done = recovery.forget(w.owner, w.scope, "memory", confirm=preview["preview_sha256"])
    assert done["deletion_complete"] is True and done["erased"]["receipts"] == 1
    assert served.registration("memory") is None


def test_a_rule_resting_on_an_artifact_the_source_never_served_does_not_hold_it(
        w: ProposalWorld) -> None:
    rag = RagService(w.feedback)
    adapter = RevetlyContextAdapter(w.engine)
    rag.register(w.owner, adapter.source("memory", w.scope), adapter)
    rag.search(w.session, RagQuery("memory", "replies customers english"), idempotency_key="s-2")
    active_rule(w)  # rests on DEC-0001, which that search did not serve
    try:
        preview = FeedbackRecovery(rag).preview_forget(w.owner, w.scope, "memory")
        served_ids = {h["document_id"] for _, r in w.evidence.records(w.scope.partition("receipts"))
                      for h in r["hits"]}
        assert "DEC-0001" not in served_ids and preview["receipts"]
    finally:
        rag.close()


# ---- reconcile-restore quarantines standing rules and profiles ----

def test_reconcile_quarantines_an_active_rule_until_fresh_qualification(
        w: ProposalWorld, served: RagService) -> None:
    rule_id, old_qualification = active_rule(w)
    done = reconcile_after_restore(served, w.owner, w.scope, "restore-1", confirm="restore-1")
    assert [q["rule_id"] for q in done["quarantined_policies"]] == [rule_id]
    assert w.lifecycle.current(w.scope, rule_id)["state"] == "quarantined"
    assert w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["decision"] == "allow"  # not in use
    with pytest.raises(Refusal) as activation:
        w.lifecycle.activate(w.owner, w.scope, rule_id, old_qualification)
    assert activation.value.code == "activation-checks-failed"
    assert any("restore quarantine" in p for p in activation.value.extra["problems"])
    with pytest.raises(Refusal) as rollback:
        w.lifecycle.rollback(w.owner, w.scope, rule_id, 1)  # the historical active receipt
    assert rollback.value.code == "activation-checks-failed"
    fresh = qualify(w, rule_id, "q-after-restore")
    again = w.lifecycle.activate(w.owner, w.scope, rule_id, fresh)
    assert again["state"] == "active"
    assert w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["decision"] == "deny"
    with pytest.raises(Refusal):  # the pre-restore generation stays unusable
        w.lifecycle.rollback(w.owner, w.scope, rule_id, 1)


def test_reconcile_quarantines_qualified_suspended_and_shadow_policies_not_revoked_ones(
        w: ProposalWorld, served: RagService) -> None:
    qualified = approved_rule(w, "p-q")
    qualify(w, qualified, "q-q")
    suspended, _ = active_rule(w, "p-s")
    w.lifecycle.suspend(w.owner, w.scope, suspended)
    shadow, _ = active_rule(w, "p-h")
    w.lifecycle.shadow(w.owner, w.scope, shadow)
    revoked, _ = active_rule(w, "p-r")
    w.lifecycle.revoke(w.owner, w.scope, revoked)
    done = reconcile_after_restore(served, w.owner, w.scope, "restore-1", confirm="restore-1")
    quarantined = sorted(q["rule_id"] for q in done["quarantined_policies"])
    assert quarantined == sorted([qualified, suspended, shadow])
    assert w.lifecycle.current(w.scope, revoked)["state"] == "revoked"
    assert standing_policies(w.evidence, w.scope) == []


def test_the_same_restore_id_is_idempotent_and_a_new_id_is_a_new_event(
        w: ProposalWorld, served: RagService) -> None:
    rule_id, _ = active_rule(w)
    first = reconcile_after_restore(served, w.owner, w.scope, "restore-1", confirm="restore-1")
    again = reconcile_after_restore(served, w.owner, w.scope, "restore-1", confirm="restore-1")
    assert again["replayed"] is True and again["quarantined_policies"] == first["quarantined_policies"]
    assert len(w.lifecycle.history(w.scope, rule_id)) == 2
    fresh = qualify(w, rule_id, "q-2")
    w.lifecycle.activate(w.owner, w.scope, rule_id, fresh)
    newer = reconcile_after_restore(served, w.owner, w.scope, "restore-2", confirm="restore-2")
    assert [q["rule_id"] for q in newer["quarantined_policies"]] == [rule_id]
    history = w.lifecycle.history(w.scope, rule_id)
    assert [g["state"] for g in history] == ["active", "quarantined", "active", "quarantined"]
    assert history[-1]["restore_id"] == "restore-2" and fresh in history[-1]["quarantined_qualifications"]


def test_rule_lifecycle_quarantine_is_owner_only_and_repeatable(w: ProposalWorld) -> None:
    rule_id, _ = active_rule(w)
    with pytest.raises(Refusal) as refused:
        w.lifecycle.quarantine("rvo_not-the-owner", w.scope, "restore-1")
    assert refused.value.code == "not_owner"
    first = w.lifecycle.quarantine(w.owner, w.scope, "restore-1")
    again = w.lifecycle.quarantine(w.owner, w.scope, "restore-1")  # a retry after a crash
    assert first == again and [q["rule_id"] for q in first] == [rule_id]
    assert len(w.lifecycle.history(w.scope, rule_id)) == 2
