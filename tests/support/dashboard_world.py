"""A vault and a canonical memory with everything the feedback dashboard shows, made through the
governed layer's own calls: a frozen schedule with reports (real counts), usage with an unknown
figure, an acknowledged guarded action checked by its verifier and bound to an outcome that
names a RAG receipt, and three proposals (pending; approved with only a diagnostic
qualification; approved, trusted-qualified and active).

Used in-process by the core tests (with their movable clock) and, before the server starts, by
the served tests (real clock: `clock=None`). Credentials go to 0600 files in WORK.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from revetly_core.governed.home import write_private_file
from revetly_core.governed.vault import Clock
from revetly_core.governed.verification import VerificationService

from revetly_core import (
    DiagnosticQualifier,
    Engine,
    EvidenceService,
    FeedbackService,
    GuardedDispatcher,
    GuardedTool,
    ProposalService,
    RagHit,
    RagQuery,
    RagService,
    RuleLifecycle,
    Scope,
    SQLiteRagProvider,
    UsageLedger,
)
from tests.core.governed.proposal_world import TrustedQualifier, refund_rule, reply_profile

SCOPE = Scope("desk", "support")
VAULT_ID = "vault"
RUNTIME = {"app": "1.0"}
OPEN_TICKET = GuardedTool("open_ticket", "1.0.0", "Open a support ticket.", {
    "type": "object", "additionalProperties": False, "required": ["customer", "summary"],
    "properties": {"customer": {"type": "string"}, "summary": {"type": "string"}}})
TICKET_ARGUMENTS = {"customer": "acme", "summary": "refund of 620 EUR"}


class Desk:
    """The ticket backend: acknowledges each ticket with a number."""

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"ticket": "T-1"}


@dataclass
class DashboardWorld:
    """What was made, by id."""

    owner: str
    reader_token: str
    pending_id: str
    diagnostic_id: str
    active_id: str
    qualification_id: str
    execution_id: str
    outcome_id: str
    receipt_id: str


def check_ticket(admission: dict[str, Any]) -> dict[str, Any]:
    """The verifier's readback: the ticket exists for the customer (state only)."""
    return {"checks": [{"name": "ticket exists", "method": "GET /tickets?customer=acme",
                        "observed": admission["arguments"]["customer"], "expected": "acme"}]}


def build_dashboard_world(memory_root: Path, homes: Path, work: Path, *, now: datetime,
                          clock: Clock | None = None) -> DashboardWorld:
    """Make the vault in HOMES/vault over the already synced instance at MEMORY_ROOT (it holds
    DEC-0001 and DEC-0002); `now` is the clock's time, for expiries."""
    evidence, owner = EvidenceService.create(homes, VAULT_ID, clock=clock)
    feedback = FeedbackService(evidence)
    rag = RagService(feedback)
    dispatcher = GuardedDispatcher(feedback)
    try:
        return _populate(evidence, owner, feedback, rag, dispatcher, memory_root, work, now)
    finally:
        dispatcher.close()
        rag.close()
        evidence.close()


def _populate(evidence: EvidenceService, owner: str, feedback: FeedbackService, rag: RagService,
              dispatcher: GuardedDispatcher, memory_root: Path, work: Path,
              now: datetime) -> DashboardWorld:
    principals = evidence.principals
    expires = now + timedelta(days=30)
    agent_id, agent_token = principals.issue_credential(owner, "desk agent")
    principals.grant(owner, agent_id, ["search", "inspect", "read", "report", "execute", "propose"],
                     SCOPE, expires)
    reader_id, reader_token = principals.issue_credential(owner, "dashboard reader")
    principals.grant(owner, reader_id, ["read"], SCOPE, expires)
    verifier_id, verifier_token = principals.issue_credential(owner, "ticket verifier")
    principals.grant(owner, verifier_id, ["verify"], SCOPE, expires)
    agent = principals.session(agent_token, SCOPE)

    provider = SQLiteRagProvider(feedback)
    source = provider.source("policies", SCOPE, "refunds", "r1")
    rag.register(owner, source, provider)
    provider.put_documents(owner, source, [RagHit.make(
        source, "refunds", "1", "Refunds above 500 EUR need a second approver.", "Refund policy §2",
        "refunds.md#2", None, None, None)])
    receipt = rag.search(agent, RagQuery("policies", "refund approver"), idempotency_key="search-1")

    feedback.freeze_schedule(owner, SCOPE, "weekly", ["t1", "t2", "t3"], task_class="refunds",
                             versions={"model": "m-1"})
    reported = feedback.report_outcome(agent, {"run_id": "r1", "task_id": "t1", "status": "succeeded",
                                               "schedule_id": "weekly",
                                               "receipts": [receipt["receipt_id"]]}, "report-1")
    feedback.report_outcome(agent, {"run_id": "r2", "task_id": "t2", "status": "failed",
                                    "schedule_id": "weekly"}, "report-2")
    usage = UsageLedger(feedback)
    usage.record_usage(owner, SCOPE, {"provider_receipt": "resp-1", "run_id": "r1", "usd_micros": 3100,
                                      "input_tokens": 2400, "output_tokens": 310, "model_calls": 3})
    usage.record_usage(owner, SCOPE, {"provider_receipt": "resp-2", "run_id": "r2", "usd_micros": None,
                                      "input_tokens": 800, "output_tokens": 90, "model_calls": 1})

    dispatcher.register(owner, SCOPE, OPEN_TICKET, Desk())
    executed = dispatcher.execute(agent, "open_ticket", TICKET_ARGUMENTS, idempotency_key="call-1")
    verification = VerificationService(dispatcher)
    verification.register_verifier(owner, SCOPE, "desk-check", verifier_id, "open_ticket", check_ticket)
    verification.verify(principals.session(verifier_token, SCOPE), "desk-check",
                        executed["execution_id"], idempotency_key="check-1",
                        outcome_id=reported["outcome_id"])

    proposals = ProposalService(feedback, Engine.open(memory_root))
    lifecycle = RuleLifecycle(proposals, runtime_versions=RUNTIME)
    pending = proposals.propose_rule(agent, refund_rule(), "proposal-pending")
    diagnostic = proposals.propose_profile(agent, reply_profile(), "proposal-profile")
    proposals.review(owner, SCOPE, diagnostic["proposal_id"], "approve", reviewer="Dana")
    lifecycle.qualify(owner, SCOPE, diagnostic["proposal_id"], DiagnosticQualifier(),
                      idempotency_key="q-diag", expires_at=now + timedelta(days=7))
    active = proposals.propose_rule(agent, refund_rule(title="Refunds name their reason"),
                                    "proposal-active")
    proposals.review(owner, SCOPE, active["proposal_id"], "approve", reviewer="Dana")
    qualified = lifecycle.qualify(owner, SCOPE, active["proposal_id"], TrustedQualifier(),
                                  idempotency_key="q-active", expires_at=now + timedelta(days=7))
    qualification_id = qualified["qualification"]["qualification_id"]
    lifecycle.activate(owner, SCOPE, active["proposal_id"], qualification_id)

    work.mkdir(parents=True, exist_ok=True)
    write_private_file(work / "owner.token", owner.encode() + b"\n")
    write_private_file(work / "reader.token", reader_token.encode() + b"\n")
    return DashboardWorld(owner, reader_token, pending["proposal_id"], diagnostic["proposal_id"],
                          active["proposal_id"], qualification_id, executed["execution_id"],
                          reported["outcome_id"], receipt["receipt_id"])
