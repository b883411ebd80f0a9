"""Proposals and the rule lifecycle in one file: a model proposes, the owner reviews, a rule is used.

    python examples/governed_proposals.py build/proposals-demo   # run the tour

The application is a refund desk. Its policy lives in a Revetly instance (the canonical memory):
a decision note says refunds above 500 EUR need a reason and a second approver. What the tour does:
1. owner set-up (deployment code, never in a model's reach): scaffold the instance with the note,
   create the vault home, and grant the desk's application credential `propose`;
2. the model proposes a rule grounded in that note; its retry with the same key returns the same
   closed receipt (ids and digests, not the note's words);
3. the owner approves it: the review rereads the note under the instance's write lock, and the
   REV- record in the instance's review store is answered;
4. the application's own trusted qualifier accepts it, after the attempt was charged, and the
   owner activates it. The built-in diagnostic qualifier alone would stay inconclusive;
5. the application asks the rule about calls before dispatching them: deny, needs approval, allow;
6. the owner shadows the rule, and then the note changes. A rollback to the active generation is
   refused, because its source no longer says what the rule rests on.

The trusted qualifier here is a stand-in for the application's real qualification process. Its
acceptance is not evidence that the rule works.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from revetly_core import (
    DiagnosticQualifier,
    Engine,
    EvidenceService,
    FeedbackService,
    ProposalService,
    Refusal,
    RuleLifecycle,
    Scope,
)

SCOPE = Scope(agent="assistant", workspace="refunds")
NOTE = ("---\nid: DEC-0001\ntitle: Refund approvals\ntype: decision\nstatus: accepted\n---\n"
        "Refunds above 500 EUR need a stated reason and a second approver from finance.\n")
RULE = {
    "title": "Large refunds need a reason and approval",
    "tool": "issue_refund",
    "applies_when": [{"kind": "argument_equals", "argument": "tier", "value": "large"}],
    "requires": [{"kind": "argument_present", "argument": "reason"}, {"kind": "approval_required"}],
    "rationale": "DEC-0001 asks for both above 500 EUR",
    "sources": [{"kind": "memory", "artifact_id": "DEC-0001"}],
}


class FinanceSignOff:
    """Stand-in for the application's trusted qualification process (here it simply accepts)."""

    name = "finance-sign-off"
    kind = "trusted"

    def qualify(self, proposal: dict[str, Any], runtime_versions: dict[str, str]) -> dict[str, Any]:
        return {"verdict": "accepted",
                "evidence": {"signed_off_by": "finance", "rule": proposal["candidate"]["title"]}}


def owner_setup(folder: Path) -> tuple[Path, str, str]:
    """The instance with its note, the vault home, and a credential granted propose."""
    instance = folder / "policy"
    Engine.init(instance)
    (instance / "notes" / "DEC-0001.md").write_text(NOTE, encoding="utf-8")
    Engine.open(instance).sync()
    evidence, owner = EvidenceService.create(folder / "homes", "refunds")
    principal, token = evidence.principals.issue_credential(owner, "refund desk")
    evidence.principals.grant(owner, principal, ["propose"], SCOPE,
                              datetime.now(UTC) + timedelta(days=1))
    evidence.close()
    return instance, owner, token


def tour(folder: Path, instance: Path, owner: str, token: str) -> dict[str, Any]:
    evidence = EvidenceService.open(folder / "homes", "refunds")
    proposals = ProposalService(FeedbackService(evidence), Engine.open(instance))
    lifecycle = RuleLifecycle(proposals, runtime_versions={"refund-desk": "1.0"})
    session = evidence.principals.session(token, SCOPE)
    summary: dict[str, Any] = {}

    receipt = proposals.propose_rule(session, RULE, "proposal-1")
    summary["receipt_status"] = receipt["status"]
    summary["retry_same_receipt"] = proposals.propose_rule(session, RULE, "proposal-1") == receipt
    listed = Engine.open(instance).list_reviews()["reviews"]
    summary["review_listed_by_engine"] = [r["review_id"] == receipt["review_id"] for r in listed]

    rule_id = receipt["proposal_id"]
    summary["review"] = proposals.review(owner, SCOPE, rule_id, "approve", reviewer="Dana")["status"]

    in_a_week = evidence.clock() + timedelta(days=7)
    diagnostic = lifecycle.qualify(owner, SCOPE, rule_id, DiagnosticQualifier(),
                                   idempotency_key="q-diag", expires_at=in_a_week)
    summary["diagnostic_verdict"] = diagnostic["qualification"]["verdict"]
    accepted = lifecycle.qualify(owner, SCOPE, rule_id, FinanceSignOff(),
                                 idempotency_key="q-finance", expires_at=in_a_week)
    summary["attempts_charged"] = accepted["attempts_charged"]
    active = lifecycle.activate(owner, SCOPE, rule_id, accepted["qualification"]["qualification_id"])
    summary["activated_generation"] = active["generation"]

    calls = {"large, no reason": {"tier": "large", "amount": 900},
             "large, reason": {"tier": "large", "amount": 900, "reason": "damaged"},
             "small": {"tier": "small", "amount": 20}}
    summary["decisions"] = {name: lifecycle.evaluate(SCOPE, "issue_refund", arguments)["decision"]
                            for name, arguments in calls.items()}
    summary["decisions"]["large, reason, approved"] = lifecycle.evaluate(
        SCOPE, "issue_refund", calls["large, reason"], approved=True)["decision"]

    lifecycle.shadow(owner, SCOPE, rule_id, reason="watch before a policy change")
    (instance / "notes" / "DEC-0001.md").write_text(NOTE.replace("500", "1000"), encoding="utf-8")
    Engine.open(instance).sync()
    try:
        lifecycle.rollback(owner, SCOPE, rule_id, active["generation"])
        summary["rollback_after_change"] = "rolled back"
    except Refusal as refusal:
        summary["rollback_after_change"] = refusal.code
    summary["generations"] = [g["state"] for g in lifecycle.history(SCOPE, rule_id)]
    evidence.close()
    return summary


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    folder = Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    instance, owner, token = owner_setup(folder)
    print(json.dumps(tour(folder, instance, owner, token), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
