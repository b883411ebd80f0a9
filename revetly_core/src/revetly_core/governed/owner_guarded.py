"""Owner workflows over files for guarded execution: reconcile an uncertain effect, record usage,
reconcile a scope after a restore.

What `revetly rag owner reconcile`, `owner record-usage` and `owner reconcile-restore` run. The
owner credential is read from its private file; the journal receipt and the usage report are
JSON files of at most 256 KiB. Reconcile reads only retained evidence (no verification callback runs here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from revetly_core.governed.dispatcher import GuardedDispatcher
from revetly_core.governed.local import load_json_file, owner_services
from revetly_core.governed.scope import Scope
from revetly_core.governed.usage import UsageLedger
from revetly_core.governed.verification import VerificationService
from revetly_core.refusal import Refusal


def _json_object(path: Path | str) -> dict[str, Any]:
    data = load_json_file(path)
    if not isinstance(data, dict):
        raise Refusal("bad_json", f"{path} does not hold a JSON object", "put one JSON object in the file")
    return data


def reconcile_file(root: Path | str, vault_id: str, owner_credential_file: Path | str, scope: Scope,
                   execution_id: str, verification_id: str, journal_file: Path | str) -> dict[str, Any]:
    """Reconcile one uncertain execution from a retained verification and a journal receipt file."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (_, feedback, _, _)):
        receipt = _json_object(journal_file)
        dispatcher = GuardedDispatcher(feedback)
        try:
            return VerificationService(dispatcher).reconcile(owner, scope, execution_id,
                                                             verification_id, receipt)
        finally:
            dispatcher.close()


def record_usage_file(root: Path | str, vault_id: str, owner_credential_file: Path | str, scope: Scope,
                      usage_file: Path | str) -> dict[str, Any]:
    """Record one provider receipt's usage from a JSON file (owner only; reuse never double-counts)."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (_, feedback, _, _)):
        report = _json_object(usage_file)
        return UsageLedger(feedback).record_usage(owner, scope, report)


def reconcile_restore_file(root: Path | str, vault_id: str, owner_credential_file: Path | str, scope: Scope,
                           restore_id: str, confirm: str) -> dict[str, Any]:
    """Disable the scope's restored grants, sources and export consents (owner only, idempotent
    per restore event id)."""
    from revetly_core.governed.restore import reconcile_after_restore

    with owner_services(root, vault_id, owner_credential_file) as (owner, (_, _, rag, _)):
        return reconcile_after_restore(rag, owner, scope, restore_id, confirm=confirm)
