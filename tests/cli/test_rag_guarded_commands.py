"""`revetly rag tools|execution|usage` and `owner reconcile|record-usage` over a real home.

The application (here: the test, in-process) registers the tool and runs the execution; the
CLI attaches no handler and only reads, reconciles from retained evidence, or records usage."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from revetly_core.governed.principals import read_credential_file

from revetly_core import (
    EvidenceService,
    FeedbackService,
    GuardedDispatcher,
    Refusal,
    Scope,
    VerificationService,
)
from tests.cli.test_rag_commands import Rag
from tests.core.governed.guarded_world import SEND, JournalBackend, effect_verifier

SCOPE = Scope("writer", "project")
USAGE = {"provider_receipt": "resp_1", "run_id": "run-1", "usd_micros": 250, "input_tokens": 100,
         "output_tokens": None, "model_calls": 1}


@pytest.fixture()
def uncertain(tmp_path: Path) -> tuple[Rag, dict[str, Any]]:
    """A home whose send_notice execution lost its acknowledgement, verified by a verifier identity."""
    cli = Rag(tmp_path)
    cli.run("owner.token", "owner", "init")
    cli.run("owner.token", "owner", "grant", "--app-credential-file", str(tmp_path / "app.token"),
            "--operations", "execute,read", "--days", "1")
    owner = read_credential_file(tmp_path / "owner.token")
    evidence = EvidenceService.open(tmp_path / "homes", "v1")
    try:
        feedback = FeedbackService(evidence)
        dispatcher = GuardedDispatcher(feedback)
        backend = JournalBackend(tmp_path / "journal.jsonl")
        backend.fail = True
        dispatcher.register(owner, SCOPE, SEND, backend, with_context=True)
        session = evidence.principals.session(read_credential_file(tmp_path / "app.token"), SCOPE)
        with pytest.raises(Refusal) as caught:
            dispatcher.execute(session, "send_notice", {"to": "ops", "text": "hi"}, idempotency_key="k1")
        execution_id = str(caught.value.extra["execution_id"])
        verifier, token = evidence.principals.issue_credential(owner, "verifier")
        evidence.principals.grant(owner, verifier, ["verify"], SCOPE, datetime.now(UTC) + timedelta(days=1))
        verification = VerificationService(dispatcher)
        verification.register_verifier(owner, SCOPE, "journal-check", verifier, "send_notice",
                                       effect_verifier(backend), binding="effect_receipt")
        record = verification.verify(evidence.principals.session(token, SCOPE), "journal-check",
                                     execution_id, idempotency_key="v1")
        dispatcher.close()
    finally:
        evidence.close()
    (tmp_path / "receipt.json").write_text(json.dumps(backend.journal_entry(execution_id)))
    return cli, {"execution_id": execution_id, "verification_id": record["verification_id"]}


def test_tools_lists_the_registered_schema_without_a_handler_here(
        uncertain: tuple[Rag, dict[str, Any]]) -> None:
    cli, _ = uncertain
    (tool,) = cli.run("app.token", "tools")["tools"]
    assert tool["name"] == "send_notice" and tool["input_schema"] == SEND.input_schema
    assert tool["available"] is False


def test_execution_shows_the_standing_hold_and_owner_reconcile_clears_it(
        uncertain: tuple[Rag, dict[str, Any]]) -> None:
    cli, ids = uncertain
    before = cli.run("app.token", "execution", "--id", ids["execution_id"])
    assert before["status"] == "uncertain" and before["hold"] is True
    done = cli.run("owner.token", "owner", "reconcile", "--execution", ids["execution_id"],
                   "--verification", ids["verification_id"],
                   "--journal-file", str(cli.folder / "receipt.json"))
    assert done["terminal_status"] == "succeeded"
    after = cli.run("app.token", "execution", "--id", ids["execution_id"])
    assert after["status"] == "reconciled" and after["hold"] is False


def test_reconcile_with_the_application_credential_is_refused(uncertain: tuple[Rag, dict[str, Any]]) -> None:
    cli, ids = uncertain
    refused = cli.run("app.token", "owner", "reconcile", "--execution", ids["execution_id"],
                      "--verification", ids["verification_id"],
                      "--journal-file", str(cli.folder / "receipt.json"), code=2)
    assert refused["refusal"]["code"] == "not_owner"


def test_record_usage_twice_counts_once(uncertain: tuple[Rag, dict[str, Any]]) -> None:
    cli, _ = uncertain
    (cli.folder / "usage.json").write_text(json.dumps(USAGE))
    first = cli.run("owner.token", "owner", "record-usage", "--file", str(cli.folder / "usage.json"))
    again = cli.run("owner.token", "owner", "record-usage", "--file", str(cli.folder / "usage.json"))
    assert first == again
    totals = cli.run("app.token", "usage", "--run", "run-1")
    assert totals["receipts"] == 1 and totals["usd_micros"]["total"] == 250
    assert totals["output_tokens"] == {"total": None, "known_subtotal": None, "unknown": 1}


def test_owner_reconcile_restore_disables_the_scopes_grants_from_the_command_line(tmp_path: Path) -> None:
    cli = Rag(tmp_path)
    cli.run("owner.token", "owner", "init")
    cli.run("owner.token", "owner", "grant", "--app-credential-file", str(tmp_path / "app.token"),
            "--operations", "search,read", "--days", "1")
    done = cli.run("owner.token", "owner", "reconcile-restore", "--restore-id", "adopt-1",
                   "--confirm", "adopt-1")
    assert len(done["revoked_grants"]) == 1
    again = cli.run("owner.token", "owner", "reconcile-restore", "--restore-id", "adopt-1",
                    "--confirm", "adopt-1")
    assert again["replayed"] is True
    refused = cli.run("owner.token", "owner", "reconcile-restore", "--restore-id", "adopt-2",
                      "--confirm", "adopt-1", code=2)
    assert refused["refusal"]["code"] == "preview_mismatch"
    assert cli.run("app.token", "sources", code=2)["refusal"]["code"] == "not_authorized"
