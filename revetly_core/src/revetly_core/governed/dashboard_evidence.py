"""What the dashboard shows of each guarded action: its exact arguments, its status, the checks
its verifiers retained and the source evidence of the outcomes those checks are bound to.

Everything is read from the scope's own vault partitions, following typed links only: a
verification names its execution and (optionally) its outcome; an outcome report names the RAG
receipts it rests on. Counts are bounded before anything is read past them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from revetly_core.governed.execution_state import EXECUTIONS, execution_status, holds
from revetly_core.governed.feedback import OUTCOMES
from revetly_core.governed.rag_service import RECEIPTS
from revetly_core.governed.scope import Scope
from revetly_core.governed.vault import EvidenceService
from revetly_core.governed.verification import VERIFICATIONS

MAX_ACTIONS = 50
"""The most recent guarded actions the screen lists."""
MAX_RECEIPTS_PER_OUTCOME = 8
MAX_HITS_PER_RECEIPT = 16


def check_view(verification: dict[str, Any]) -> dict[str, Any]:
    """One retained verification as the page shows it: verifier, binding, verdict, every check
    (method, observed, expected, passed) and the journal entry it read."""
    return {"verification_id": verification["verification_id"],
            "verifier_id": verification["verifier_id"], "verified_by": verification["verified_by"],
            "verified_at": verification["verified_at"], "binding": verification["binding"],
            "verdict": verification["verdict"], "checks_passed": verification["checks_passed"],
            "checks": verification["checks"], "journal": verification["journal"],
            "outcome_id": (verification.get("outcome") or {}).get("outcome_id")}


def receipt_evidence(receipt: dict[str, Any]) -> dict[str, Any]:
    """A RAG receipt as source evidence: the source at its revision, the query, and each hit's
    citation, locator and passage digest (the retained passage itself stays in the vault)."""
    hits = receipt["hits"][:MAX_HITS_PER_RECEIPT]
    return {"receipt_id": receipt["receipt_id"],
            "sources": [f"{s['source_id']}@{s['revision']}" for s in receipt["sources"]],
            "query": receipt["query"].get("text"), "created_at": receipt["created_at"],
            "hits": [{"document_id": h["document_id"], "chunk_id": h["chunk_id"],
                      "citation": h.get("citation"), "locator": h.get("locator"),
                      "passage_sha256": h.get("sha256")} for h in hits],
            "hits_shown": len(hits), "hits_retained": len(receipt["hits"])}


def outcome_evidence(evidence: EvidenceService, scope: Scope, outcome_id: str) -> dict[str, Any]:
    """An outcome a verification is bound to, with the receipts its report names (a receipt not
    retained in the scope is listed as missing, never guessed)."""
    outcome = evidence.get(scope.partition(OUTCOMES), outcome_id)
    if outcome is None:
        return {"outcome_id": outcome_id, "missing": True, "receipts": []}
    report = outcome["report"]
    receipts = []
    for receipt_id in report.get("receipts", [])[:MAX_RECEIPTS_PER_OUTCOME]:
        receipt = evidence.get(scope.partition(RECEIPTS), receipt_id)
        receipts.append(receipt_evidence(receipt) if receipt is not None
                        else {"receipt_id": receipt_id, "missing": True})
    return {"outcome_id": outcome_id, "missing": False, "run_id": report["run_id"],
            "task_id": report["task_id"], "status": report["status"],
            "verification": outcome["verification"], "receipts": receipts}


def not_running(execution_id: str) -> bool:
    """No handler runs in this process (a dashboard without the application's dispatcher)."""
    return False


def recent_actions(evidence: EvidenceService, scope: Scope, *,
                   running: Callable[[str], bool] = not_running,
                   limit: int = MAX_ACTIONS) -> list[dict[str, Any]]:
    """The scope's latest guarded actions, newest first: exact arguments and digest, status and
    hold (from the retained records), checks and the source evidence of their bound outcomes."""
    partition = scope.partition(EXECUTIONS)
    admissions = [r for _, r in evidence.records(partition, "exec-")][-limit:]
    held = {link["execution_id"] for _, link in evidence.records(partition, "hold:")}
    checks: dict[str, list[dict[str, Any]]] = {}
    for _, record in evidence.records(scope.partition(VERIFICATIONS), "ver-"):
        checks.setdefault(record["execution_id"], []).append(record)
    out = []
    for admission in reversed(admissions):
        execution_id = admission["execution_id"]
        outcome = evidence.get(partition, f"outcome:{execution_id}")
        reconciled = evidence.get(partition, f"reconcile:{execution_id}")
        status = execution_status(held=execution_id in held, outcome=outcome, reconciled=reconciled,
                                  running=running(execution_id))
        verifications = checks.get(execution_id, [])
        bound = dict.fromkeys(v["outcome"]["outcome_id"] for v in verifications if v.get("outcome"))
        out.append({"execution_id": execution_id, "tool": admission["tool"],
                    "tool_version": admission["tool_version"], "actor": admission["actor"],
                    "admitted_at": admission["admitted_at"], "arguments": admission["arguments"],
                    "arguments_sha256": admission["arguments_sha256"], "status": status,
                    "hold": execution_id in held and holds(status),
                    "acknowledgement": (outcome or {}).get("result") if status == "acknowledged"
                    else None,
                    "checks": [check_view(v) for v in verifications],
                    "sources": [outcome_evidence(evidence, scope, o) for o in bound]})
    return out
