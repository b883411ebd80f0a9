"""Reconcile after restore: the owner disables what a restored home would otherwise trust again.

After an operator restored a home (or part of one) from a copy, or adopted it on a machine
(``adoption.adopt``), ``reconcile_after_restore`` disables, for one scope, every grant that is
still live, every active RAG source registration and every export consent not yet withdrawn, and
quarantines every standing rule and profile through the rule lifecycle (until a fresh
qualification, none is used again, neither by rollback nor by an older receipt). Each is
disabled by a new record (revocation, withdrawal, quarantined generation); nothing is deleted,
nothing is regranted or requalified, no uncertain write is replayed. The owner then regrants,
re-registers, requalifies and records new consents deliberately. The operation is keyed by the
operator's restore event id, confirmed by repeating it: the same id returns the retained
reconciliation, a new id is a new restore event. Only the id of the home's current adoption
clears that adoption's feedback gate for the scope; an older id cannot.
"""

from __future__ import annotations

import re
from typing import Any

from revetly_core.governed.export import ExampleExportService
from revetly_core.governed.lifecycle import quarantine_policies
from revetly_core.governed.rag_service import RagService
from revetly_core.governed.scope import Scope
from revetly_core.governed.vault import CONTROL, EvidenceService
from revetly_core.refusal import Refusal

_RESTORE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def restore_record_id(scope: Scope, restore_id: str) -> str:
    """The CONTROL id of one scope's reconciliation of one restore event."""
    return f"restore-reconciled:{scope.key}:{restore_id}"


def check_restore_confirmation(restore_id: str, confirm: str) -> str:
    """A restore id is 1-64 characters from A-Z a-z 0-9 . _ -, confirmed by repeating it exactly."""
    if not isinstance(restore_id, str) or not _RESTORE_ID.match(restore_id):
        raise Refusal("bad_restore_id", f"{restore_id!r} is not a restore event id",
                      "use 1-64 characters from A-Z a-z 0-9 . _ - starting with a letter or digit")
    if confirm != restore_id:
        raise Refusal("preview_mismatch", "the confirmation does not repeat the restore id",
                      "pass --confirm with exactly the restore event id")
    return restore_id


def adoption_generation(evidence: EvidenceService, restore_id: str) -> int | None:
    """The home's adoption generation when restore_id is its current adoption's id, else None
    (a restore event the operator names, or a binding that does not authenticate)."""
    from revetly_core.governed.adoption import read_binding

    try:
        binding = read_binding(evidence)
    except Refusal:
        return None
    return int(binding["generation"]) if binding.get("adoption_id") == restore_id else None


def reconcile_after_restore(rag: RagService, owner_token: str, scope: Scope, restore_id: str, *,
                            confirm: str) -> dict[str, Any]:
    """Owner only: disable the scope's live grants, active sources and open export consents, and
    quarantine its standing rules and profiles."""
    evidence = rag.evidence
    evidence.principals.require_owner(owner_token)
    check_restore_confirmation(restore_id, confirm)
    record_id = restore_record_id(scope, restore_id)
    done = evidence.get(CONTROL, record_id)
    if done is not None:
        return {**done, "replayed": True}
    grants = [g["grant_id"] for g in evidence.principals.grants(owner_token)
              if g["live"] and Scope.from_dict(g["scope"]) == scope]
    for grant_id in grants:
        evidence.principals.revoke_grant(owner_token, grant_id)
    sources = sorted({r["source"]["source_id"] for _, r in evidence.records(CONTROL, "source:")
                      if Scope.from_dict(r["source"]["scope"]) == scope})
    disabled_sources = [s for s in sources if rag.registration(s) is not None]
    for source_id in disabled_sources:
        rag.revoke_source(owner_token, source_id)
    exports = ExampleExportService(rag.feedback, rag)
    consents = [c["consent_id"] for _, c in evidence.records(CONTROL, f"export-consent:{scope.key}:")
                if evidence.get(CONTROL, f"export-withdrawn:{scope.key}:{c['consent_id']}") is None]
    for consent_id in consents:
        exports.withdraw(owner_token, scope, consent_id)
    quarantined = quarantine_policies(evidence, scope, restore_id)
    record = {"restore_id": restore_id, "scope": scope.to_dict(), "revoked_grants": grants,
              "revoked_sources": disabled_sources, "withdrawn_consents": consents,
              "quarantined_policies": quarantined,
              "adoption_generation": adoption_generation(evidence, restore_id),
              "at": evidence.clock().isoformat(),
              "next": "regrant, re-register sources, requalify rules and profiles and record new "
                      "consents deliberately; nothing was regranted, requalified or replayed"}
    evidence.append(CONTROL, record_id, record)
    return record
