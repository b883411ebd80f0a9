"""`revetly rag propose-rule|propose-profile` and the owner's review and lifecycle commands.

A real instance is the canonical memory, named explicitly with --memory; a real home holds the
proposals. The CLI has only the diagnostic qualifier, so activation through it stays refused;
an accepted qualification comes from the application's trusted qualifier (the Python API)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from revetly_core.governed.principals import read_credential_file

from revetly_core import Engine, EvidenceService, FeedbackService, ProposalService, RuleLifecycle, Scope
from tests.cli.test_rag_commands import Rag
from tests.core.gitrepo import Instance, md
from tests.core.governed.proposal_world import TrustedQualifier, refund_rule, reply_profile, seed_instance

SCOPE = Scope("writer", "project")


@pytest.fixture()
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Rag, Instance]:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    instance = Instance(tmp_path / "acme")
    seed_instance(instance)
    rag = Rag(tmp_path)
    rag.run("owner.token", "owner", "init")
    rag.run("owner.token", "owner", "grant", "--app-credential-file", str(tmp_path / "app.token"),
            "--operations", "propose,read", "--days", "30")
    (tmp_path / "rule.json").write_text(json.dumps(refund_rule()))
    (tmp_path / "profile.json").write_text(json.dumps(reply_profile()))
    return rag, instance


def memory(instance: Instance) -> list[str]:
    return ["--memory", str(instance.root)]


def test_propose_needs_an_explicit_memory_binding(cli: tuple[Rag, Instance], tmp_path: Path) -> None:
    rag, _ = cli
    out = rag.run("app.token", "propose-rule", "--file", str(tmp_path / "rule.json"), "--key", "p-1", code=2)
    assert out["refusal"]["code"] == "memory-not-bound"


def test_propose_review_and_the_lifecycle_from_the_command_line(cli: tuple[Rag, Instance],
                                                               tmp_path: Path) -> None:
    rag, instance = cli
    receipt = rag.run("app.token", "propose-rule", "--file", str(tmp_path / "rule.json"), "--key", "p-1",
                      *memory(instance))
    assert receipt["status"] == "pending_review"
    profile = rag.run("app.token", "propose-profile", "--file", str(tmp_path / "profile.json"),
                      "--key", "p-2", *memory(instance))
    assert profile["proposal_kind"] == "profile"
    listed = rag.run("owner.token", "owner", "proposals", *memory(instance))
    assert listed["count"] == 2
    full = rag.run("owner.token", "owner", "proposal", "--id", receipt["proposal_id"], *memory(instance))
    assert full["sources"][0]["artifact_id"] == "DEC-0001"
    approved = rag.run("owner.token", "owner", "review", "--proposal", receipt["proposal_id"], "--decision",
                       "approve", "--reviewer", "Dana", *memory(instance))
    assert approved["status"] == "approved"
    attempt = rag.run("owner.token", "owner", "qualify", "--proposal", receipt["proposal_id"], "--key", "q-1",
                      *memory(instance))
    assert attempt["qualification"]["verdict"] == "inconclusive"
    refused = rag.run("owner.token", "owner", "activate", "--rule", receipt["proposal_id"], "--qualification",
                      attempt["qualification"]["qualification_id"], *memory(instance), code=2)
    assert refused["refusal"]["code"] == "activation-checks-failed"

    # the application's trusted qualifier accepts; the owner then drives the lifecycle by CLI
    evidence = EvidenceService.open(tmp_path / "homes", "v1")
    owner = read_credential_file(tmp_path / "owner.token")
    lifecycle = RuleLifecycle(ProposalService(FeedbackService(evidence), Engine.open(instance.root)))
    accepted = lifecycle.qualify(owner, SCOPE, receipt["proposal_id"], TrustedQualifier(),
                                 idempotency_key="q-2", expires_at=evidence.clock() + timedelta(days=3))
    evidence.close()
    q = accepted["qualification"]["qualification_id"]
    rule = ["--rule", receipt["proposal_id"], *memory(instance)]
    assert rag.run("owner.token", "owner", "activate", "--qualification", q, *rule)["generation"] == 1
    assert rag.run("owner.token", "owner", "shadow-rule", *rule)["state"] == "shadow"
    assert rag.run("owner.token", "owner", "suspend-rule", "--reason", "pause", *rule)["state"] == "suspended"
    assert rag.run("owner.token", "owner", "rollback", "--generation", "1", *rule)["rolled_back_to"] == 1
    assert rag.run("owner.token", "owner", "revoke-rule", *rule)["state"] == "revoked"
    history = rag.run("owner.token", "owner", "rule-history", *rule)
    states = [g["state"] for g in history["generations"]]
    assert states == ["active", "shadow", "suspended", "active", "revoked"]
    again = rag.run("owner.token", "owner", "rollback", "--generation", "1", *rule, code=2)
    assert again["refusal"]["code"] == "rule-revoked"


def test_the_review_command_refuses_a_changed_source(cli: tuple[Rag, Instance], tmp_path: Path) -> None:
    rag, instance = cli
    receipt = rag.run("app.token", "propose-rule", "--file", str(tmp_path / "rule.json"), "--key", "p-1",
                      *memory(instance))
    instance.git.write_and_commit({"notes/DEC-0001.md": md(
        "DEC-0001", "Refund approvals", "decision", status="accepted", body="Changed.\n")})
    instance.sync()
    out = rag.run("owner.token", "owner", "review", "--proposal", receipt["proposal_id"], "--decision",
                  "approve", "--reviewer", "Dana", *memory(instance), code=2)
    assert out["refusal"]["code"] == "proposal-source-changed"
