"""ExampleExportService: verified examples only, exact preview, and a bundle only the recipient opens."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from revetly_core.governed.export import (
    ExampleExportService,
    check_outcome_ids,
    detect_secrets,
    open_export,
    verification_state,
)
from revetly_core.governed.recipient_crypto import load_public_key, public_key_sha256

from revetly_core import RagQuery, Refusal
from tests.core.governed.governed_world import World
from tests.core.governed.guarded_world import Guarded, make_guarded


@pytest.fixture()
def guarded(world: World, tmp_path: Path) -> Guarded:
    return make_guarded(world, tmp_path)


def _raw(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _verified_outcome(g: Guarded, key: str, *, note: str = "", receipts: list[str] | None = None,
                      schedule_id: str | None = None) -> str:
    """Execute send_notice, report the run's outcome and verify it with the effect-bound verifier."""
    w = g.world
    done = g.dispatcher.execute(w.session, "send_notice", {"to": "ops", "text": f"notice {key}"},
                                idempotency_key=f"exec-{key}")
    report: dict[str, Any] = {"run_id": "run-1", "task_id": f"task-{key}", "status": "succeeded",
                              "receipts": receipts or [], "note": note}
    if schedule_id is not None:
        report["schedule_id"] = schedule_id
    outcome_id = str(w.feedback.report_outcome(w.session, report, f"out-{key}")["outcome_id"])
    verdict = g.verification.verify(g.verifier, "journal-check", done["execution_id"],
                                    idempotency_key=f"ver-{key}", outcome_id=outcome_id)["verdict"]
    assert verdict == "verified_success"
    return outcome_id


def _consent(g: Guarded, recipient: X25519PrivateKey, days: float = 3) -> dict[str, Any]:
    w = g.world
    return ExampleExportService(w.feedback, w.rag).consent(
        w.owner, w.scope, purpose="evaluate notice wording", recipient_public_key=_raw(recipient),
        expires_at=w.clock() + timedelta(days=days))


def test_detect_secrets_names_the_patterns_found() -> None:
    assert detect_secrets("key AKIAABCDEFGHIJKLMNOP here") == ["aws_access_key_id"]
    assert "private_key_block" in detect_secrets("-----BEGIN OPENSSH PRIVATE KEY-----")
    assert detect_secrets("the filing deadline is in April") == []


def test_verification_state_is_verified_only_when_undisputed_and_bound_to_the_exact_digest() -> None:
    ok = {"outcome": {"outcome_id": "o", "outcome_sha256": "d"}, "verdict": "verified_success"}
    failed = {"outcome": {"outcome_id": "o", "outcome_sha256": "d"}, "verdict": "task_failed"}
    stale = {"outcome": {"outcome_id": "o", "outcome_sha256": "old"}, "verdict": "verified_success"}
    assert verification_state("o", "d", [ok]) == "verified"
    assert verification_state("o", "d", [ok, failed]) == "disputed"
    assert verification_state("o", "d", [stale]) == "unverified"
    assert verification_state("o", "d", [{"outcome": None, "verdict": "verified_success"}]) == "unverified"


def test_an_export_names_one_to_a_hundred_distinct_ids() -> None:
    with pytest.raises(Refusal):
        check_outcome_ids([])
    with pytest.raises(Refusal):
        check_outcome_ids(["out-a", "out-a"])
    with pytest.raises(Refusal):
        check_outcome_ids([f"out-{i}" for i in range(101)])


def test_an_export_opens_only_with_the_recipients_private_key(guarded: Guarded, tmp_path: Path) -> None:
    w = guarded.world
    receipt = w.rag.search(w.session, RagQuery("law", "filing deadline"), idempotency_key="s1")
    outcome_id = _verified_outcome(guarded, "a", receipts=[str(receipt["receipt_id"])])
    recipient, stranger = X25519PrivateKey.generate(), X25519PrivateKey.generate()
    consent = _consent(guarded, recipient)
    service = ExampleExportService(w.feedback, w.rag)
    preview = service.preview(w.owner, w.scope, consent["consent_id"], [outcome_id])
    assert [e["outcome_id"] for e in preview["examples"]] == [outcome_id]
    done = service.export(w.owner, w.scope, consent["consent_id"], [outcome_id],
                          confirm=preview["preview_sha256"])
    bundle = done["bundle"]
    assert "filing deadline" not in json.dumps(bundle)

    opened = open_export(bundle, recipient)
    assert opened["preview_sha256"] == preview["preview_sha256"]
    example = opened["examples"][0]
    assert example["evidence"][0]["hits"][0]["passage"].startswith("The filing deadline")
    assert example["lineage"]["sources"] == ["law@r1"]
    with pytest.raises(Refusal) as wrong_key:
        open_export(bundle, stranger)
    assert wrong_key.value.code == "export_unreadable"
    changed = {**bundle, "header": {**bundle["header"], "export_id": "export-other"}}
    with pytest.raises(Refusal) as tampered:
        open_export(changed, recipient)
    assert tampered.value.code == "export_unreadable"

    # the recipient's own process, holding only the bundle and the private key, opens it
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    (tmp_path / "recipient.pem").write_bytes(recipient.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    script = ("import json, sys; from cryptography.hazmat.primitives import serialization as s; "
              "from revetly_core.governed.export import open_export; "
              "key = s.load_pem_private_key(open(sys.argv[2], 'rb').read(), None); "
              "opened = open_export(json.load(open(sys.argv[1])), key); "
              "print(json.dumps(opened['examples'][0]['outcome_id']))")
    ran = subprocess.run([sys.executable, "-c", script, str(tmp_path / "bundle.json"),
                          str(tmp_path / "recipient.pem")], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == outcome_id


def test_unverified_evaluation_secret_and_unrevalidated_examples_are_excluded(guarded: Guarded) -> None:
    w = guarded.world
    receipt = w.rag.search(w.session, RagQuery("law", "parking permits"), idempotency_key="s1")
    kept = _verified_outcome(guarded, "kept")
    secret = _verified_outcome(guarded, "secret", note="used AKIAABCDEFGHIJKLMNOP to send it")
    w.feedback.freeze_schedule(w.owner, w.scope, "eval-1", ["task-eval"])
    evaluation = _verified_outcome(guarded, "eval", schedule_id="eval-1")
    stale = _verified_outcome(guarded, "stale", receipts=[str(receipt["receipt_id"])])
    unverified = str(w.feedback.report_outcome(
        w.session, {"run_id": "run-9", "task_id": "t9", "status": "succeeded"}, "plain")["outcome_id"])
    w.rag.register(w.owner, w.provider.source("law", w.scope, "statutes", "r2"), w.provider)
    consent = _consent(guarded, X25519PrivateKey.generate())
    preview = ExampleExportService(w.feedback, w.rag).preview(
        w.owner, w.scope, consent["consent_id"], [kept, secret, evaluation, stale, unverified, "out-none"])
    assert [e["outcome_id"] for e in preview["examples"]] == [kept]
    assert {x["outcome_id"]: x["reason"] for x in preview["excluded"]} == {
        secret: "secret_detected", evaluation: "evaluation_record", stale: "source_not_revalidated",
        unverified: "unverified", "out-none": "unknown_outcome"}


def test_a_changed_preview_is_not_exported(guarded: Guarded) -> None:
    w = guarded.world
    receipt = w.rag.search(w.session, RagQuery("law", "filing deadline"), idempotency_key="s1")
    outcome_id = _verified_outcome(guarded, "a", receipts=[str(receipt["receipt_id"])])
    consent = _consent(guarded, X25519PrivateKey.generate())
    service = ExampleExportService(w.feedback, w.rag)
    preview = service.preview(w.owner, w.scope, consent["consent_id"], [outcome_id])
    w.rag.revoke_source(w.owner, "law")  # the evidence no longer revalidates: the preview changed
    with pytest.raises(Refusal) as refused:
        service.export(w.owner, w.scope, consent["consent_id"], [outcome_id],
                       confirm=preview["preview_sha256"])
    assert refused.value.code == "preview_mismatch"


def test_consent_is_bounded_expires_and_can_be_withdrawn(guarded: Guarded) -> None:
    w = guarded.world
    outcome_id = _verified_outcome(guarded, "a")
    with pytest.raises(Refusal) as too_long:
        _consent(guarded, X25519PrivateKey.generate(), days=8)
    assert too_long.value.code == "bad_export"
    service = ExampleExportService(w.feedback, w.rag)
    consent = _consent(guarded, X25519PrivateKey.generate(), days=1)
    preview = service.preview(w.owner, w.scope, consent["consent_id"], [outcome_id])
    w.clock.advance(days=1, seconds=1)
    with pytest.raises(Refusal) as expired:
        service.export(w.owner, w.scope, consent["consent_id"], [outcome_id],
                       confirm=preview["preview_sha256"])
    assert expired.value.code == "export_expired"
    fresh = _consent(guarded, X25519PrivateKey.generate())
    service.withdraw(w.owner, w.scope, fresh["consent_id"])
    with pytest.raises(Refusal) as withdrawn:
        service.preview(w.owner, w.scope, fresh["consent_id"], [outcome_id])
    assert withdrawn.value.code == "export_withdrawn"


def test_export_is_owner_only(guarded: Guarded) -> None:
    w = guarded.world
    service = ExampleExportService(w.feedback, w.rag)
    with pytest.raises(Refusal) as refused:
        service.consent(w.app_token, w.scope, purpose="p",
                        recipient_public_key=_raw(X25519PrivateKey.generate()),
                        expires_at=w.clock() + timedelta(days=1))
    assert refused.value.code == "not_owner"
    with pytest.raises(Refusal) as bad_key:
        service.consent(w.owner, w.scope, purpose="p", recipient_public_key=b"short",
                        expires_at=w.clock() + timedelta(days=1))
    assert bad_key.value.code == "bad_recipient_key"


def test_a_recipient_key_is_read_from_raw_bytes_or_pem_alike() -> None:
    key = X25519PrivateKey.generate()
    pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                        serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    assert public_key_sha256(load_public_key(pem)) == public_key_sha256(load_public_key(_raw(key)))
    with pytest.raises(Refusal) as refused:
        load_public_key("-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n")
    assert refused.value.code == "bad_recipient_key"
