"""Guarded execution in one file: a model acts through a proxy tool that never replays an effect.

    python examples/governed_guarded.py build/guarded-demo          # run the tour
    python examples/governed_guarded.py build/guarded-demo --serve  # then serve MCP on stdio

The application here is a ticket desk. Its backend (`TicketDesk`) opens tickets and keeps an
operation journal, one JSON line per operation, in `<folder>/journal.jsonl`. What the tour does:
1. owner set-up (deployment code, never in a model's reach): create the vault home, an
   application credential granted `execute` and `read`, and a *separate* verifier credential
   granted `verify`;
2. every process start: register the `open_ticket` proxy tool (exact schema and version) with
   its handler, and an `effect_receipt` verifier that reads the backend's journal;
3. a model call opens a ticket (acknowledged); its retry with the same key returns the original
   admission without opening a second ticket;
4. the next call loses its acknowledgement: the execution is uncertain and the tool is held, so
   a new key is refused rather than risking a duplicate ticket;
5. the verifier identity checks the journal entry of exactly that invocation; the owner
   reconciles the hold from that verification and the backend's terminal journal receipt;
6. a deliberate new call is admitted again, and the owner records the run's provider usage.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from revetly_core import (
    EvidenceService,
    ExecutionContext,
    FeedbackService,
    GuardedDispatcher,
    GuardedTool,
    RagService,
    Refusal,
    Scope,
    UsageLedger,
    VerificationService,
)

SCOPE = Scope(agent="assistant", workspace="support")
OPEN_TICKET = GuardedTool(
    "open_ticket", "1.0.0", "Open a support ticket for a customer.",
    {"type": "object", "additionalProperties": False, "required": ["customer", "summary"],
     "properties": {"customer": {"type": "string", "minLength": 1, "maxLength": 64},
                    "summary": {"type": "string", "minLength": 1, "maxLength": 500}}})


class TicketDesk:
    """The application's backend. It journals every operation under the invocation id the
    dispatcher gives it (with_context=True), so a verifier can later read what really happened.

    A normal return is a definitive answer. When the outcome is ambiguous (here: the network
    drops the reply after the ticket was written) the handler raises instead."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.drop_next_reply = False

    def invoke(self, arguments: dict[str, Any], *, context: ExecutionContext) -> dict[str, Any]:
        ticket = f"T-{len(self.entries()) + 1:04d}"
        entry = {"run_id": "run-7", "turn_id": f"turn-{len(self.entries()) + 1}",
                 "invocation_id": context.execution_id, "arguments_sha256": context.arguments_sha256,
                 "effect_ref": ticket, "status": "succeeded", "customer": arguments["customer"],
                 "summary": arguments["summary"]}
        with self.journal.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
        if self.drop_next_reply:
            self.drop_next_reply = False
            raise TimeoutError("the reply was lost after the ticket was written")
        return {"ticket": ticket}

    def entries(self) -> list[dict[str, Any]]:
        if not self.journal.exists():
            return []
        return [json.loads(line) for line in self.journal.read_text(encoding="utf-8").splitlines()]

    def journal_receipt(self, execution_id: str) -> dict[str, Any] | None:
        """The backend's own terminal record of one invocation (what the owner reconciles with)."""
        for entry in self.entries():
            if entry["invocation_id"] == execution_id:
                return {k: entry[k] for k in ("run_id", "turn_id", "invocation_id", "arguments_sha256",
                                              "effect_ref", "status")}
        return None


def journal_verifier(desk: TicketDesk) -> Any:
    """An effect_receipt verification callback: destination state plus the operation journal."""

    def verify(admission: dict[str, Any]) -> dict[str, Any]:
        receipt = desk.journal_receipt(admission["execution_id"])
        entry = next((e for e in desk.entries() if e["invocation_id"] == admission["execution_id"]), {})
        return {"checks": [{"name": "ticket summary", "method": "read the ticket in the desk's journal",
                            "observed": entry.get("summary"),
                            "expected": admission["arguments"]["summary"]}],
                "journal": receipt}

    return verify


def owner_setup(root: Path) -> dict[str, str]:
    """Once per deployment: the home, the application's and the verifier's credentials."""
    evidence, owner = EvidenceService.create(root, "desk")
    expiry = datetime.now(UTC) + timedelta(days=30)
    app_id, app_token = evidence.principals.issue_credential(owner, "support assistant")
    evidence.principals.grant(owner, app_id, ["execute", "read"], SCOPE, expiry)
    verifier_id, verifier_token = evidence.principals.issue_credential(owner, "ticket verifier")
    evidence.principals.grant(owner, verifier_id, ["verify"], SCOPE, expiry)
    evidence.close()
    return {"owner": owner, "app": app_token, "verifier": verifier_token, "verifier_id": verifier_id}


def application(root: Path, folder: Path, tokens: dict[str, str]) -> dict[str, object]:
    """Every process start: open the home, register tool and verifier, then serve model calls."""
    evidence = EvidenceService.open(root, "desk")
    feedback = FeedbackService(evidence)
    dispatcher = GuardedDispatcher(feedback, timeout=10.0)
    verification = VerificationService(dispatcher)
    desk = TicketDesk(folder / "journal.jsonl")
    dispatcher.register(tokens["owner"], SCOPE, OPEN_TICKET, desk, with_context=True)
    verification.register_verifier(tokens["owner"], SCOPE, "desk-journal", tokens["verifier_id"],
                                   "open_ticket", journal_verifier(desk), binding="effect_receipt")
    session = evidence.principals.session(tokens["app"], SCOPE)  # the model's connection
    call = {"customer": "acme", "summary": "Invoice export fails for March"}

    first = dispatcher.execute(session, "open_ticket", call, idempotency_key="call-1")
    retry = dispatcher.execute(session, "open_ticket", call, idempotency_key="call-1")

    desk.drop_next_reply = True
    second = {"customer": "acme", "summary": "Dunning emails go out twice"}
    try:
        dispatcher.execute(session, "open_ticket", second, idempotency_key="call-2")
        raise AssertionError("the lost reply must leave the effect uncertain")
    except Refusal as refusal:
        uncertain_id = str(refusal.extra["execution_id"])
        lost = refusal.code
    try:
        dispatcher.execute(session, "open_ticket", second, idempotency_key="call-3")
        blocked = "admitted"
    except Refusal as refusal:
        blocked = refusal.code  # a new key cannot sneak past an uncertain effect

    verifier = evidence.principals.session(tokens["verifier"], SCOPE)  # a separate identity
    checked = verification.verify(verifier, "desk-journal", uncertain_id, idempotency_key="check-1")
    receipt = desk.journal_receipt(uncertain_id)
    assert receipt is not None
    reconciled = verification.reconcile(tokens["owner"], SCOPE, uncertain_id, checked["verification_id"],
                                        receipt)
    follow_up = {"customer": "acme", "summary": "Follow-up on T-0002"}
    third = dispatcher.execute(session, "open_ticket", follow_up, idempotency_key="call-4")

    ledger = UsageLedger(feedback)
    ledger.record_usage(tokens["owner"], SCOPE, {"provider_receipt": "resp_42", "run_id": "run-7",
                                                 "usd_micros": 3100, "input_tokens": 2400,
                                                 "output_tokens": 310, "model_calls": 3})
    ledger.record_usage(tokens["owner"], SCOPE, {"provider_receipt": "resp_42", "run_id": "run-7",
                                                 "usd_micros": 3100, "input_tokens": 2400,
                                                 "output_tokens": 310, "model_calls": 3})  # a retry
    summary = {
        "first": {"status": first["status"], "result": first["result"]},
        "retry_replayed": retry["replayed"],
        "lost_acknowledgement": lost,
        "new_key_while_uncertain": blocked,
        "verification": checked["verdict"],
        "reconciled": {"terminal_status": reconciled["terminal_status"],
                       "task_result": reconciled["task_result"]},
        "after_reconcile": {"status": third["status"], "result": third["result"]},
        "tickets_in_journal": [e["effect_ref"] for e in desk.entries()],
        "usage_usd_micros": ledger.usage(session, "run-7")["usd_micros"]["total"],
    }
    if "--serve" in sys.argv:
        from revetly_mcp import GovernedMCPServer

        rag = RagService(feedback)  # no sources in this example; rag_* tools list none
        GovernedMCPServer(feedback, rag, session, dispatcher=dispatcher).serve()
        rag.close()
    dispatcher.close()
    evidence.close()
    return summary


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    folder = Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    tokens = owner_setup(folder / "homes")
    summary = application(folder / "homes", folder, tokens)
    print(json.dumps(summary, indent=2), file=sys.stderr if "--serve" in argv else sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
