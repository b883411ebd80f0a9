"""Exporting verified examples to one recipient, then forgetting their source, in one file.

    python examples/governed_export.py build/export-demo

What the tour does:
1. owner set-up: a vault home, a `sqlite-vault` source `policy` with two passages, an
   application credential (search, report, execute, read) and a separate verifier (verify);
2. the application searches the policy, sends a notice through a guarded tool, reports the
   run's outcome naming the search receipt, and the verifier binds an effect-receipt
   verification to that outcome;
3. the owner records a consent for a recipient's X25519 key, reviews the exact preview and
   exports it; the recipient opens the bundle with its private key (another key cannot);
4. the owner forgets the source after an exact preview: its passages, the receipt and the
   outcome that depended on it are erased, their ids kept as anchors, and a search of the
   re-registered source at a new revision finds nothing of the forgotten text.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from revetly_core.governed.export import open_export

from revetly_core import (
    EvidenceService,
    ExampleExportService,
    ExecutionContext,
    FeedbackRecovery,
    FeedbackService,
    GuardedDispatcher,
    GuardedTool,
    RagHit,
    RagQuery,
    RagService,
    Refusal,
    Scope,
    SQLiteRagProvider,
    VerificationService,
)

NOTICE = GuardedTool("send_notice", "1.0.0", "Send a notice to a team.", {
    "type": "object", "additionalProperties": False, "required": ["to", "text"],
    "properties": {"to": {"type": "string"}, "text": {"type": "string"}}})


class Mailer:
    """The backend: each notice is one line of its operation journal."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal

    def invoke(self, arguments: dict[str, Any], *, context: ExecutionContext) -> dict[str, Any]:
        entry = {"run_id": "run-1", "turn_id": "turn-1", "invocation_id": context.execution_id,
                 "arguments_sha256": context.arguments_sha256,
                 "effect_ref": f"mail-{context.execution_id[5:13]}",
                 "status": "succeeded", "text": arguments["text"]}
        with self.journal.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
        return {"sent": True}

    def check(self, admission: dict[str, Any]) -> dict[str, Any]:
        """The verifier's read of the journal: the delivered text and the operation's entry."""
        lines = [json.loads(x) for x in self.journal.read_text(encoding="utf-8").splitlines()]
        entry = next(e for e in lines if e["invocation_id"] == admission["execution_id"])
        return {"checks": [{"name": "notice delivered", "method": "read the mail journal",
                            "observed": entry["text"], "expected": admission["arguments"]["text"]}],
                "journal": {k: entry[k] for k in ("run_id", "turn_id", "invocation_id", "arguments_sha256",
                                                  "effect_ref", "status")}}


def main(folder: Path) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    evidence, owner = EvidenceService.create(folder / "homes", "demo")
    feedback, scope = FeedbackService(evidence), Scope("assistant", "support")
    rag, provider = RagService(feedback), SQLiteRagProvider(feedback)
    until = datetime.now(UTC) + timedelta(days=1)
    app_id, app_token = evidence.principals.issue_credential(owner, "support app")
    evidence.principals.grant(owner, app_id, ["search", "report", "execute", "read"], scope, until)
    verifier_id, verifier_token = evidence.principals.issue_credential(owner, "mail verifier")
    evidence.principals.grant(owner, verifier_id, ["verify"], scope, until)
    source = provider.source("policy", scope, "handbook", "r1")
    rag.register(owner, source, provider)
    provider.put_documents(owner, source, [
        RagHit.make(source, "refunds", "c1", "Refunds are issued within fourteen days.", "Handbook 3", "3"),
        RagHit.make(source, "outages", "c1", "Outage notices go to the operations team.", "Handbook 7", "7")])
    dispatcher = GuardedDispatcher(feedback)
    mailer = Mailer(folder / "journal.jsonl")
    dispatcher.register(owner, scope, NOTICE, mailer, with_context=True)
    verification = VerificationService(dispatcher)
    verification.register_verifier(owner, scope, "mail-journal", verifier_id, "send_notice", mailer.check,
                                   binding="effect_receipt")

    app = evidence.principals.session(app_token, scope)
    receipt = rag.search(app, RagQuery("policy", "outage notices"), idempotency_key="search-1")
    sent = dispatcher.execute(app, "send_notice", {"to": "ops", "text": "Outage at 10:00"},
                              idempotency_key="notice-1")
    outcome = feedback.report_outcome(app, {"run_id": "run-1", "task_id": "notify-ops", "status": "succeeded",
                                            "receipts": [receipt["receipt_id"]]}, "outcome-1")
    verified = verification.verify(evidence.principals.session(verifier_token, scope), "mail-journal",
                                   sent["execution_id"], idempotency_key="verify-1",
                                   outcome_id=outcome["outcome_id"])

    recipient = X25519PrivateKey.generate()
    exports = ExampleExportService(feedback, rag)
    consent = exports.consent(owner, scope, purpose="review notice wording",
                              recipient_public_key=recipient.public_key().public_bytes(
                                  serialization.Encoding.Raw, serialization.PublicFormat.Raw),
                              expires_at=datetime.now(UTC) + timedelta(days=2))
    preview = exports.preview(owner, scope, consent["consent_id"], [outcome["outcome_id"]])
    bundle = exports.export(owner, scope, consent["consent_id"], [outcome["outcome_id"]],
                            confirm=preview["preview_sha256"])["bundle"]
    opened = open_export(bundle, recipient)
    try:
        open_export(bundle, X25519PrivateKey.generate())
        stranger = "opened"
    except Refusal as refusal:
        stranger = refusal.code

    recovery = FeedbackRecovery(rag)
    plan = recovery.preview_forget(owner, scope, "policy")
    forgotten = recovery.forget(owner, scope, "policy", confirm=plan["preview_sha256"])
    fresh = provider.source("policy", scope, "handbook", "r2")
    rag.register(owner, fresh, provider)
    provider.put_documents(owner, fresh, [
        RagHit.make(fresh, "holidays", "c1", "The office closes on public holidays.", "Handbook §9", "9")])
    after = rag.search(app, RagQuery("policy", "outage notices"), idempotency_key="search-2")
    dispatcher.close()
    rag.close()
    evidence.close()
    return {"verification": verified["verdict"], "exported": [e["outcome_id"] for e in opened["examples"]]
            == [outcome["outcome_id"]], "stranger_key": stranger,
            "forgotten": forgotten["erased"], "hits_after_forget": len(after["hits"])}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1])), indent=2))
