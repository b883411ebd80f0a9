"""Hypothesis property of the rule lifecycle: any sequence of owner moves keeps its invariants.

Whatever the owner does (activate, shadow, suspend, revoke, rollback to any generation, let the
qualification expire), the generations stay contiguous, nothing follows a revocation, a rollback
copies an earlier active generation, and a rule is enforced only while its latest generation is
active and its checks hold.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.governed.governed_world import START
from tests.core.governed.proposal_world import TrustedQualifier, approved_rule, make_proposal_world

MOVES = st.lists(st.one_of(
    st.just(("activate",)), st.just(("activate_shadow",)), st.just(("shadow",)), st.just(("suspend",)),
    st.just(("revoke",)), st.just(("expire",)), st.tuples(st.just("rollback"), st.integers(1, 6))),
    max_size=8)
LARGE = {"tier": "large"}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=MOVES)
def test_any_sequence_of_owner_moves_keeps_the_lifecycle_invariants(tmp_path_factory, moves) -> None:  # type: ignore[no-untyped-def]
    folder: Path = tmp_path_factory.mktemp("lifecycle")
    w = make_proposal_world(Instance(folder / "acme"), folder / "homes")
    try:
        rule_id = approved_rule(w)
        qualification_id = w.lifecycle.qualify(
            w.owner, w.scope, rule_id, TrustedQualifier(), idempotency_key="q",
            expires_at=START + timedelta(days=2))["qualification"]["qualification_id"]
        expired = False
        for move in moves:
            before = w.lifecycle.history(w.scope, rule_id)
            try:
                if move[0] == "activate":
                    w.lifecycle.activate(w.owner, w.scope, rule_id, qualification_id)
                elif move[0] == "activate_shadow":
                    w.lifecycle.activate(w.owner, w.scope, rule_id, qualification_id, mode="shadow")
                elif move[0] == "expire":
                    w.clock.advance(days=3)
                    expired = True
                elif move[0] == "rollback":
                    w.lifecycle.rollback(w.owner, w.scope, rule_id, move[1])
                else:
                    getattr(w.lifecycle, move[0])(w.owner, w.scope, rule_id)
            except Refusal:
                assert w.lifecycle.history(w.scope, rule_id) == before  # a refusal appends nothing
            history = w.lifecycle.history(w.scope, rule_id)
            assert [g["generation"] for g in history] == list(range(1, len(history) + 1))
            states = [g["state"] for g in history]
            assert "revoked" not in states[:-1]  # nothing follows a revocation
            for g in history:
                if g.get("rolled_back_to"):
                    assert history[g["rolled_back_to"] - 1]["state"] == "active"
                    assert g["generation"] > g["rolled_back_to"]
            enforced = [r for r in w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["rules"]
                        if r["state"] == "active"]
            should = bool(history) and history[-1]["state"] == "active" and not expired
            assert bool(enforced) is should
            if expired and history and history[-1]["generation"] > len(before):
                assert history[-1]["state"] in ("suspended", "revoked", "shadow")
    finally:
        w.close()
