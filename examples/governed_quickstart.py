"""Governed retrieval in one file: copy it into your application and replace the retriever.

    python examples/governed_quickstart.py build/governed-demo          # run the tour
    python examples/governed_quickstart.py build/governed-demo --serve  # then serve MCP on stdio

What it does, in the order an application does it:
1. owner set-up (once, in your deployment code, never in a model's reach): create the vault home,
   issue an application credential, grant it operations for one agent/workspace with an expiry,
   register sources (the built-in encrypted `sqlite-vault` one and your own retriever);
2. per request: authenticate the application credential for the scope, search with an
   idempotency key (a retained, encrypted receipt comes back), inspect a retained passage,
   report how the task went, read the quality counts of a frozen schedule.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from revetly_core import (
    EvidenceService,
    FeedbackService,
    RagHit,
    RagQuery,
    RagService,
    RagSource,
    Refusal,
    Scope,
    SQLiteRagProvider,
)

HANDBOOK = {
    ("leave", "1"): "Employees accrue two days of paid leave per month of service.",
    ("leave", "2"): "Unused leave carries over for at most one calendar year.",
    ("expenses", "1"): "Receipts are required for every expense above twenty euros.",
}


class HandbookRetriever:
    """Your existing retriever behind the adapter protocol (here: a dict and a word match).

    Trusted owner code. Return the exact passages with their digests (RagHit.make computes it),
    keep the source's identity, revision and scope, and stop at the monotonic deadline."""

    provider_id = "handbook-dict"
    egress = "none"  # a retriever that calls a remote service declares "remote"

    def search(self, source: RagSource, query: RagQuery, *, deadline: float) -> tuple[RagHit, ...]:
        words = set(query.text.lower().split())
        return tuple(self._hit(source, doc, chunk) for (doc, chunk), text in HANDBOOK.items()
                     if words & set(text.lower().rstrip(".").split()))

    def inspect(self, source: RagSource, document_id: str, chunk_id: str, *, deadline: float) -> RagHit:
        return self._hit(source, document_id, chunk_id)

    def _hit(self, source: RagSource, doc: str, chunk: str) -> RagHit:
        return RagHit.make(source, doc, chunk, HANDBOOK[(doc, chunk)], f"Handbook, {doc} §{chunk}",
                           locator=f"handbook/{doc}#{chunk}", jurisdiction="EU", effective_from="2024-01-01")


def owner_setup(root: Path) -> tuple[str, str]:
    """Once per deployment. Returns (owner token, application token): keep both in 0600 files."""
    evidence, owner = EvidenceService.create(root, "demo")
    feedback = FeedbackService(evidence)
    rag = RagService(feedback)
    provider = SQLiteRagProvider(feedback)
    scope = Scope(agent="assistant", workspace="hr")

    principal, app_token = evidence.principals.issue_credential(owner, "hr assistant")
    evidence.principals.grant(owner, principal, ["search", "inspect", "read", "report"], scope,
                              datetime.now(UTC) + timedelta(days=30))

    statutes = provider.source("statutes", scope, "labour-law", "2026-01")
    rag.register(owner, statutes, provider)
    provider.put_documents(owner, statutes, [
        RagHit.make(statutes, "working-time", "art-3", "A working week may not exceed forty-eight hours.",
                    "Working Time Act, art. 3", jurisdiction="EU", effective_from="2003-11-04"),
    ])
    feedback.freeze_schedule(owner, scope, "weekly-check", ["answer-leave-question"])
    rag.close()
    evidence.close()
    return owner, app_token


def application(root: Path, owner: str, app_token: str) -> dict[str, object]:
    """Every process start: open the home, attach adapters, authenticate, then serve requests."""
    evidence = EvidenceService.open(root, "demo")
    feedback = FeedbackService(evidence)
    rag = RagService(feedback)
    provider = SQLiteRagProvider(feedback)
    rag.attach_registered(provider)  # sources already registered with provider_id sqlite-vault
    scope = Scope(agent="assistant", workspace="hr")
    rag.register(owner, RagSource("handbook", scope, "policies", "v7", "none", "handbook-dict"),
                 HandbookRetriever())
    session = evidence.principals.session(app_token, scope)  # identity comes from the credential

    receipt = rag.search(session, RagQuery("handbook", "how much paid leave"), idempotency_key="req-1")
    retry = rag.search(session, RagQuery("handbook", "how much paid leave"), idempotency_key="req-1")
    assert retry == receipt  # a retry is not a second search
    first = receipt["hits"][0]
    shown = rag.inspect(session, receipt["receipt_id"], first["document_id"], first["chunk_id"])
    law = rag.search(session, RagQuery("statutes", "working week hours", as_of="2026-01-01"),
                     idempotency_key="req-2")
    try:
        rag.search(session, RagQuery("handbook", "expenses"), idempotency_key="req-1")
        conflict = "accepted"
    except Refusal as refusal:
        conflict = refusal.code
    report = feedback.report_outcome(session, {"run_id": "run-1", "task_id": "answer-leave-question",
                                               "status": "succeeded", "schedule_id": "weekly-check",
                                               "receipts": [receipt["receipt_id"]]}, "report-1")
    quality = feedback.quality(session, "weekly-check")
    summary = {
        "receipt_id": receipt["receipt_id"],
        "handbook_hits": [h["citation"] for h in receipt["hits"]],
        "inspected": shown["hit"]["passage"],
        "statute_hits": [h["citation"] for h in law["hits"]],
        "conflicting_key_reuse": conflict,
        "outcome_verification": report["verification"],
        "quality": {k: quality[k] for k in ("scheduled", "observed", "rates")},
        "capabilities": feedback.capabilities(session)["operations"],
    }
    if "--serve" in sys.argv:
        from revetly_mcp.governed_server import GovernedMCPServer

        GovernedMCPServer(feedback, rag, session).serve()  # stdio; a host starts this process
    rag.close()
    evidence.close()
    return summary


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = Path(argv[1])
    owner, app_token = owner_setup(root)
    summary = application(root, owner, app_token)
    print(json.dumps(summary, indent=2), file=sys.stderr if "--serve" in argv else sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
