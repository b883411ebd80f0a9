"""ExampleExportService: owner-only export of verified examples, encrypted to one recipient.

The owner first records a consent (purpose, the recipient's X25519 public key, an expiry of at
most seven days). A preview then shows, for explicit outcome ids of the scope (1-100), the exact
plaintext each example would carry — the outcome, its verification and the retained RAG
evidence, with lineage — and every excluded id with its reason. ``export`` recomputes the preview
and seals it to the recipient only when the confirmation is that preview's SHA-256 and the
consent is neither expired nor withdrawn. Withdrawal blocks new exports, never recalls delivered
ones. Nothing here trains, fetches from a provider or keeps a key that opens the bundle.

Excluded: unknown ids; outcomes without an undisputed effect-bound ``verified_success``
verification bound to their exact retained digest (unverified or disputed); scheduled
evaluation runs; examples in which a secret pattern is detected; and examples whose RAG receipts
no longer revalidate (missing, forgotten, or a source revoked or at another revision).
Secret detection is a pattern scan, not a guarantee of anonymization: review the preview.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
from datetime import datetime, timedelta
from typing import Any, Literal

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from revetly_core.governed.feedback import OUTCOMES, FeedbackService
from revetly_core.governed.idempotency import request_digest
from revetly_core.governed.rag_service import RECEIPTS, RagService
from revetly_core.governed.recipient_crypto import (
    SCHEME,
    load_public_key,
    open_bundle,
    public_key_sha256,
    seal_for,
)
from revetly_core.governed.scope import Scope, check_name
from revetly_core.governed.sources import RagSource
from revetly_core.governed.vault import CONTROL
from revetly_core.governed.verification import VERIFICATIONS
from revetly_core.refusal import Refusal

MAX_EXPORT_IDS = 100
MAX_CONSENT_DAYS = 7
MAX_PURPOSE_CHARS = 500
VerificationState = Literal["verified", "unverified", "disputed"]

SECRET_PATTERNS: dict[str, re.Pattern[str]] = {
    "private_key_block": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "aws_access_key_id": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "github_token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b"),
    "slack_token": re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    "api_secret_key": re.compile(r"\bsk-[A-Za-z0-9_-]{20,}\b"),
    "revetly_credential": re.compile(r"\brv[oa]_[A-Za-z0-9_-]{40,}"),
    "bearer_token": re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*"),
    "assigned_password": re.compile(r"(?i)\b(?:password|passwd|secret)\s*[:=]\s*\S{6,}"),
}


def detect_secrets(text: str) -> list[str]:
    """The names of the secret patterns found in a text (a scan, not proof of their absence)."""
    return [name for name, pattern in SECRET_PATTERNS.items() if pattern.search(text)]


def verification_state(outcome_id: str, outcome_sha256: str,
                       verifications: list[dict[str, Any]]) -> VerificationState:
    """Verified: at least one verification bound to this exact outcome says verified_success and
    none bound to it says anything else (disagreement is disputed; none is unverified)."""
    bound = [v for v in verifications if (v.get("outcome") or {}).get("outcome_id") == outcome_id
             and v["outcome"].get("outcome_sha256") == outcome_sha256]
    verdicts = {v["verdict"] for v in bound}
    if not verdicts:
        return "unverified"
    if verdicts != {"verified_success"}:
        return "disputed" if "verified_success" in verdicts else "unverified"
    return "verified"


def is_evaluation_record(outcome: dict[str, Any]) -> bool:
    """An outcome reported against an owner-frozen schedule is an evaluation run, never exported."""
    return outcome["report"].get("schedule_id") is not None


def check_consent_expiry(expires_at: datetime, now: datetime) -> datetime:
    """A consent expires in the future and at most seven days from now."""
    if expires_at.tzinfo is None or not now < expires_at <= now + timedelta(days=MAX_CONSENT_DAYS):
        raise Refusal("bad_export", f"a consent expires within {MAX_CONSENT_DAYS} days from now "
                      "(a timezone-aware time)", "give an expiry within seven days")
    return expires_at


def check_outcome_ids(outcome_ids: list[str]) -> list[str]:
    """1-100 distinct outcome ids, each a valid name."""
    ids = [check_name(i, "outcome_id") for i in outcome_ids]
    if not 1 <= len(ids) <= MAX_EXPORT_IDS or len(set(ids)) != len(ids):
        raise Refusal("bad_export", f"an export names 1-{MAX_EXPORT_IDS} distinct outcome ids",
                      "list the outcome ids to export, each once")
    return ids


def open_export(bundle: dict[str, Any], private_key: X25519PrivateKey) -> dict[str, Any]:
    """The recipient's side: the exported examples, opened with the recipient's private key."""
    payload: dict[str, Any] = json.loads(open_bundle(bundle, private_key))
    return payload


def _consent_id(record_id: str) -> str:
    return record_id.rsplit(":", 1)[1]


class ExampleExportService:
    """Owner SDK: consent, exact preview, confirmation, recipient-encrypted export, withdrawal."""

    def __init__(self, feedback: FeedbackService, rag: RagService) -> None:
        self.feedback = feedback
        self.rag = rag
        self.evidence = feedback.evidence

    def consent(self, owner_token: str, scope: Scope, *, purpose: str, recipient_public_key: bytes | str,
                expires_at: datetime) -> dict[str, Any]:
        """Owner only: record consent to export to one recipient key for one purpose, until expiry."""
        self.evidence.principals.require_owner(owner_token)
        if not isinstance(purpose, str) or not purpose.strip() or len(purpose) > MAX_PURPOSE_CHARS:
            raise Refusal("bad_export", f"a purpose is 1-{MAX_PURPOSE_CHARS} characters",
                          "say what the examples are exported for")
        key = load_public_key(recipient_public_key)
        check_consent_expiry(expires_at, self.evidence.clock())
        consent_id = f"consent-{secrets.token_hex(16)}"
        raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        record = {"consent_id": consent_id, "scope": scope.to_dict(), "purpose": purpose,
                  "recipient_public_key": base64.b64encode(raw).decode(),
                  "recipient_key_sha256": public_key_sha256(key), "expires_at": expires_at.isoformat(),
                  "created_at": self.evidence.clock().isoformat(), "scheme": SCHEME}
        self.evidence.append(CONTROL, f"export-consent:{scope.key}:{consent_id}", record)
        return record

    def withdraw(self, owner_token: str, scope: Scope, consent_id: str) -> dict[str, Any]:
        """Owner only: no further export under this consent (delivered copies are not recalled)."""
        self.evidence.principals.require_owner(owner_token)
        self._consent(scope, consent_id, live=False)
        record_id = f"export-withdrawn:{scope.key}:{consent_id}"
        if self.evidence.get(CONTROL, record_id) is None:
            self.evidence.append(CONTROL, record_id, {"consent_id": consent_id,
                                                      "at": self.evidence.clock().isoformat()})
        return {"withdrawn": consent_id, "note": "copies already delivered are not recalled"}

    def preview(self, owner_token: str, scope: Scope, consent_id: str,
                outcome_ids: list[str]) -> dict[str, Any]:
        """Owner only: the exact plaintext an export would carry, its exclusions and its digest."""
        self.evidence.principals.require_owner(owner_token)
        consent = self._consent(scope, consent_id, live=True)
        return self._preview(scope, consent, check_outcome_ids(outcome_ids))

    def export(self, owner_token: str, scope: Scope, consent_id: str, outcome_ids: list[str], *,
               confirm: str) -> dict[str, Any]:
        """Owner only: seal the confirmed preview to the consent's recipient; a changed preview,
        an expired or withdrawn consent refuses. A content-free record of the export is kept."""
        self.evidence.principals.require_owner(owner_token)
        consent = self._consent(scope, consent_id, live=True)
        preview = self._preview(scope, consent, check_outcome_ids(outcome_ids))
        if confirm != preview["preview_sha256"]:
            raise Refusal("preview_mismatch", "the confirmation is not the digest of the current preview",
                          "preview again, review it, and confirm with its preview_sha256")
        export_id = f"export-{secrets.token_hex(16)}"
        plaintext = json.dumps({"export_id": export_id, **preview}, sort_keys=True,
                               ensure_ascii=False).encode()
        bundle = seal_for(load_public_key(base64.b64decode(consent["recipient_public_key"])), plaintext,
                          {"export_id": export_id, "preview_sha256": preview["preview_sha256"]})
        receipt = {"export_id": export_id, "consent_id": consent_id, "scope": scope.to_dict(),
                   "recipient_key_sha256": consent["recipient_key_sha256"],
                   "preview_sha256": preview["preview_sha256"],
                   "outcome_ids": [e["outcome_id"] for e in preview["examples"]],
                   "excluded": preview["excluded"], "exported_at": self.evidence.clock().isoformat()}
        self.evidence.append(CONTROL, f"export:{scope.key}:{export_id}", receipt)
        return {"receipt": receipt, "bundle": bundle}

    # ---- internals ----

    def _consent(self, scope: Scope, consent_id: str, *, live: bool) -> dict[str, Any]:
        if not isinstance(consent_id, str) or not re.fullmatch(r"consent-[0-9a-f]{32}", consent_id):
            raise Refusal("no_export_consent", "not a consent id", "use the consent_id consent returned")
        record = self.evidence.get(CONTROL, f"export-consent:{scope.key}:{consent_id}")
        if record is None:
            raise Refusal("no_export_consent", f"no export consent {consent_id} in {scope.key}",
                          "record a consent first")
        if live and self.evidence.get(CONTROL, f"export-withdrawn:{scope.key}:{consent_id}") is not None:
            raise Refusal("export_withdrawn", f"consent {consent_id} was withdrawn",
                          "record a new consent for a new export")
        if live and self.evidence.clock() >= datetime.fromisoformat(record["expires_at"]):
            raise Refusal("export_expired", f"consent {consent_id} expired", "record a new consent")
        return record

    def _preview(self, scope: Scope, consent: dict[str, Any], outcome_ids: list[str]) -> dict[str, Any]:
        verifications = [v for _, v in self.evidence.records(scope.partition(VERIFICATIONS), "ver-")]
        examples: list[dict[str, Any]] = []
        excluded: list[dict[str, str]] = []
        for outcome_id in outcome_ids:
            example, reason = self._example(scope, outcome_id, verifications)
            if example is None:
                excluded.append({"outcome_id": outcome_id, "reason": reason})
            else:
                examples.append(example)
        body = {"consent_id": consent["consent_id"], "scope": scope.to_dict(), "purpose": consent["purpose"],
                "recipient_key_sha256": consent["recipient_key_sha256"], "expires_at": consent["expires_at"],
                "examples": examples, "excluded": excluded,
                "note": "secret detection is a pattern scan, not anonymization; review every example"}
        return {**body, "preview_sha256": request_digest(body)}

    def _example(self, scope: Scope, outcome_id: str,
                 verifications: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
        """One example and "", or None and the reason it is excluded."""
        try:
            outcome = self.evidence.get(scope.partition(OUTCOMES), outcome_id)
        except Refusal as refusal:
            if refusal.code != "record_forgotten":
                raise
            return None, "forgotten"
        if outcome is None:
            return None, "unknown_outcome"
        if is_evaluation_record(outcome):
            return None, "evaluation_record"
        digest = request_digest(outcome)
        state = verification_state(outcome_id, digest, verifications)
        if state != "verified":
            return None, state
        evidence = []
        for receipt_id in outcome["report"]["receipts"]:
            revalidated = self._revalidated(scope, receipt_id)
            if revalidated is None:
                return None, "source_not_revalidated"
            evidence.append(revalidated)
        bound = [v for v in verifications if (v.get("outcome") or {}).get("outcome_id") == outcome_id]
        example = {"outcome_id": outcome_id, "outcome_sha256": digest, "report": outcome["report"],
                   "verifications": [{"verification_id": v["verification_id"], "verdict": v["verdict"],
                                      "binding": v["binding"], "checks": v["checks"]} for v in bound],
                   "evidence": evidence,
                   "lineage": {"reported_by": outcome["reported_by"], "reported_at": outcome["reported_at"],
                               "verification_ids": [v["verification_id"] for v in bound],
                               "receipt_ids": list(outcome["report"]["receipts"]),
                               "sources": sorted({f"{e['source']['source_id']}@{e['source']['revision']}"
                                                  for e in evidence})}}
        if detect_secrets(json.dumps(example, ensure_ascii=False)):
            return None, "secret_detected"
        return example, ""

    def _revalidated(self, scope: Scope, receipt_id: str) -> dict[str, Any] | None:
        """A receipt's evidence when its retained source is still the registered one, else None."""
        try:
            receipt = self.evidence.get(scope.partition(RECEIPTS), receipt_id)
        except Refusal as refusal:
            if refusal.code != "record_forgotten":
                raise
            return None
        if receipt is None or not receipt.get("sources"):
            return None
        retained = RagSource.from_dict(receipt["sources"][0])
        if self.rag.registration(retained.source_id) != retained:
            return None
        return {"receipt_id": receipt_id, "source": retained.to_dict(), "query": receipt["query"],
                "hits": [{k: h[k] for k in ("document_id", "chunk_id", "passage", "sha256", "citation")}
                         for h in receipt["hits"]]}
