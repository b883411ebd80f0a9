"""Helpers of the proposal and lifecycle tests: a real instance as canonical memory, a real vault."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from revetly_core import (
    Engine,
    EvidenceService,
    FeedbackService,
    ProposalService,
    RuleLifecycle,
    Scope,
    Session,
)
from tests.core.gitrepo import Instance, md
from tests.core.governed.governed_world import START, Clock

DECISION = "Refunds above 500 EUR need a second approver from finance.\n"
PREFERENCE = "Replies to customers are in English and signed by the desk.\n"


@dataclass
class ProposalWorld:
    instance: Instance
    engine: Engine
    clock: Clock
    evidence: EvidenceService
    owner: str
    feedback: FeedbackService
    proposals: ProposalService
    lifecycle: RuleLifecycle
    scope: Scope
    principal_id: str
    session: Session

    def close(self) -> None:
        self.evidence.close()


def seed_instance(instance: Instance) -> None:
    """Two artifacts a rule and a profile can rest on, read into the CONTEXT."""
    instance.git.write_and_commit({
        "notes/DEC-0001.md": md("DEC-0001", "Refund approvals", "decision", status="accepted", body=DECISION),
        "notes/DEC-0002.md": md("DEC-0002", "Customer replies", "decision", status="accepted",
                                body=PREFERENCE),
    })
    instance.sync()


def make_proposal_world(instance: Instance, homes: Path, *, tenant: str = "local",
                        operations: tuple[str, ...] = ("propose", "read")) -> ProposalWorld:
    seed_instance(instance)
    clock = Clock()
    evidence, owner = EvidenceService.create(homes, "vault", clock=clock)
    feedback = FeedbackService(evidence)
    engine = Engine.open(instance.root)
    proposals = ProposalService(feedback, engine, memory_tenant_id=tenant)
    lifecycle = RuleLifecycle(proposals, runtime_versions={"app": "1.0"})
    scope = Scope("desk", "support")
    principal_id, token = evidence.principals.issue_credential(owner, "desk agent")
    evidence.principals.grant(owner, principal_id, operations, scope, START + timedelta(days=30))
    return ProposalWorld(instance, engine, clock, evidence, owner, feedback, proposals, lifecycle, scope,
                         principal_id, evidence.principals.session(token, scope))


def refund_rule(**changes: Any) -> dict[str, Any]:
    """A rule: refunds above the threshold need approval and a stated reason."""
    rule: dict[str, Any] = {
        "title": "Large refunds need approval",
        "tool": "issue_refund",
        "applies_when": [{"kind": "argument_equals", "argument": "tier", "value": "large"}],
        "requires": [{"kind": "argument_present", "argument": "reason"}, {"kind": "approval_required"}],
        "rationale": "the refund decision says so",
        "sources": [{"kind": "memory", "artifact_id": "DEC-0001"}],
    }
    rule.update(changes)
    return rule


def reply_profile() -> dict[str, Any]:
    return {"title": "Reply style", "settings": {"language": "en", "signed": True, "max_lines": 12},
            "sources": [{"kind": "memory", "artifact_id": "DEC-0002"}]}


class TrustedQualifier:
    """A test-only trusted qualifier: it accepts. Not qualification or efficacy evidence."""

    name = "test-trusted"
    kind = "trusted"

    def __init__(self, verdict: str = "accepted") -> None:
        self.verdict = verdict
        self.calls = 0

    def qualify(self, proposal: dict[str, Any], runtime_versions: dict[str, str]) -> dict[str, Any]:
        self.calls += 1
        return {"verdict": self.verdict, "evidence": {"fixture": True}}


class FailingQualifier:
    name = "test-failing"
    kind = "trusted"

    def __init__(self) -> None:
        self.calls = 0

    def qualify(self, proposal: dict[str, Any], runtime_versions: dict[str, str]) -> dict[str, Any]:
        self.calls += 1
        raise RuntimeError("the replay harness fell over")


def approved_rule(w: ProposalWorld, key: str = "p-1") -> str:
    """Propose the refund rule and approve it; its proposal id."""
    receipt = w.proposals.propose_rule(w.session, refund_rule(), key)
    w.proposals.review(w.owner, w.scope, receipt["proposal_id"], "approve", reviewer="Dana")
    return str(receipt["proposal_id"])


def active_rule(w: ProposalWorld, key: str = "p-1") -> tuple[str, str]:
    """An approved, qualified, active refund rule: (rule id, qualification id)."""
    rule_id = approved_rule(w, key)
    answer = w.lifecycle.qualify(w.owner, w.scope, rule_id, TrustedQualifier(), idempotency_key=f"q-{key}",
                                 expires_at=START + timedelta(days=7))
    qualification_id = answer["qualification"]["qualification_id"]
    w.lifecycle.activate(w.owner, w.scope, rule_id, qualification_id)
    return rule_id, qualification_id
