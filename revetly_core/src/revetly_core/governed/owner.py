"""Owner set-up workflows over files: create a home, grant, revoke, import passages, freeze schedules.

These are what `revetly rag owner ...` runs. Credentials only ever travel through owner-private
files: the owner credential is read from one, a new application credential is written to one.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from revetly_core.governed.home import require_new_file, write_private_file
from revetly_core.governed.local import owner_services
from revetly_core.governed.principals import (
    APP_PREFIX,
    check_operations,
    new_token,
    read_credential_file,
)
from revetly_core.governed.provider_sqlite import MAX_PUT_BATCH
from revetly_core.governed.scope import Scope
from revetly_core.governed.sources import RagHit, RagSource
from revetly_core.governed.vault import EvidenceService
from revetly_core.refusal import Refusal

MAX_IMPORT_LINE = 256 * 1024
HIT_FIELDS = {"document_id", "chunk_id", "passage", "citation", "locator", "jurisdiction",
              "effective_from", "effective_to"}


def init_home(root: Path | str, vault_id: str, owner_credential_file: Path | str) -> dict[str, Any]:
    """Create a home and write its owner credential to a new 0600 file (never printed).

    The credential file is checked free first; if it still cannot be written, the new home is
    removed again, so a refusal leaves nothing behind (a home whose owner credential was lost
    could never be used)."""
    path = Path(owner_credential_file)
    require_new_file(path, "credential file")
    evidence, token = EvidenceService.create(root, vault_id)
    try:
        write_private_file(path, token.encode() + b"\n")
    except BaseException:
        evidence.close()
        shutil.rmtree(evidence.home.path, ignore_errors=True)
        raise
    evidence.close()
    return {"home": str(evidence.home.path), "owner_credential_file": str(path)}


def parse_expiry(expires: str | None, days: float | None, now: datetime) -> datetime:
    """An expiry from an ISO instant (with zone) or a number of days from now; one of them is required."""
    if (expires is None) == (days is None):
        raise Refusal("bad_expiry", "give exactly one of an expiry instant or a number of days",
                      "e.g. --expires 2026-12-31T00:00:00+00:00 or --days 30")
    if days is not None:
        return expiry_after_days(days, now)
    assert expires is not None
    try:
        when = datetime.fromisoformat(expires.replace("Z", "+00:00"))
    except ValueError:
        raise Refusal("bad_expiry", f"{expires!r} is not an ISO date-time",
                      "use 2026-12-31T00:00:00Z") from None
    if when.tzinfo is None:
        raise Refusal("bad_expiry", "an expiry needs a time zone", "add Z or +00:00")
    try:
        return when.astimezone(UTC)
    except OverflowError:
        raise Refusal("bad_expiry", f"{expires!r} is outside the calendar's range in UTC",
                      "choose an expiry between years 1 and 9999") from None


def expiry_after_days(days: float, now: datetime) -> datetime:
    """now + days, for a positive, finite number of days that stays within the calendar."""
    if not math.isfinite(days) or days <= 0:
        raise Refusal("bad_expiry", f"--days {days} is not a positive number of days",
                      "e.g. --days 30")
    try:
        when = now + timedelta(days=days)
    except OverflowError:
        raise Refusal("bad_expiry", f"--days {days:.15g} reaches past the year 9999",
                      "choose fewer days, or an --expires instant") from None
    if when <= now:
        raise Refusal("bad_expiry", f"--days {days} is shorter than a microsecond", "e.g. --days 30")
    return when


def grant_from_files(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                     app_credential_file: Path | str, scope: Scope, operations: list[str],
                     expires: str | None, days: float | None, name: str = "application") -> dict[str, Any]:
    """Grant operations in a scope to the application whose credential file is given.

    A missing application credential file is created with a new credential (0600). Everything
    the grant needs is checked before anything is written: a refused grant issues no credential
    and leaves no credential file."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (evidence, _, _, _)):
        principals = evidence.principals
        principals.require_owner(owner)
        ops = check_operations(operations)
        expiry = parse_expiry(expires, days, evidence.clock())
        require_future(expiry, evidence.clock())
        app_path = Path(app_credential_file)
        if app_path.exists() or app_path.is_symlink():
            principal_id = principals.principal_id_of(read_credential_file(app_path))
            grant = principals.grant(owner, principal_id, ops, scope, expiry)
            return {"grant": grant.to_dict(), "credential_issued": False,
                    "app_credential_file": str(app_path)}
        token = new_token(APP_PREFIX)
        write_private_file(app_path, token.encode() + b"\n")
        try:
            principal_id, _ = principals.issue_credential(owner, name, token=token)
            grant = principals.grant(owner, principal_id, ops, scope, expiry)
        except BaseException:
            app_path.unlink(missing_ok=True)
            raise
        return {"grant": grant.to_dict(), "credential_issued": True, "app_credential_file": str(app_path)}


def require_future(expiry: datetime, now: datetime) -> None:
    """A grant's expiry lies after now."""
    if expiry <= now:
        raise Refusal("bad_expiry", "the expiry is not in the future", "choose a later expiry")


def revoke_from_files(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                      grant_id: str | None, app_credential_file: Path | str | None) -> dict[str, Any]:
    """Revoke one grant, or an application credential named by its file."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (evidence, _, _, _)):
        if (grant_id is None) == (app_credential_file is None):
            raise Refusal("bad_revoke", "name exactly one of a grant or an application credential file",
                          "--grant GRANT_ID or --app-credential-file FILE")
        if grant_id is not None:
            return evidence.principals.revoke_grant(owner, grant_id)
        assert app_credential_file is not None
        principal_id = evidence.principals.principal_id_of(read_credential_file(app_credential_file))
        return evidence.principals.revoke_principal(owner, principal_id)


def list_grants(root: Path | str, vault_id: str, owner_credential_file: Path | str) -> dict[str, Any]:
    """Every grant and its state (owner only)."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (evidence, _, _, _)):
        return {"grants": evidence.principals.grants(owner)}


def read_hits(path: Path, source: RagSource) -> Iterator[RagHit]:
    """Hits from a JSON-lines file, one passage per line; a bad line is a refusal naming it."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if len(raw) > MAX_IMPORT_LINE:
                raise Refusal("bad_import", f"{path}:{number} is longer than {MAX_IMPORT_LINE} bytes",
                              "split the passage")
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except ValueError:
                raise Refusal("bad_import", f"{path}:{number} is not JSON",
                              "one JSON object per line") from None
            if not isinstance(data, dict) or not {"document_id", "chunk_id", "passage"} <= data.keys() \
                    or not data.keys() <= HIT_FIELDS:
                raise Refusal("bad_import", f"{path}:{number} needs document_id, chunk_id, passage "
                              f"and may add {sorted(HIT_FIELDS - {'document_id', 'chunk_id', 'passage'})}",
                              "fix the line")
            if not all(isinstance(v, str) or v is None for v in data.values()):
                raise Refusal("bad_import", f"{path}:{number}: every field is a string or null",
                              "fix the line")
            yield RagHit.make(source, data["document_id"], data["chunk_id"], data["passage"],
                              data.get("citation") or data["document_id"], data.get("locator") or "",
                              data.get("jurisdiction"), data.get("effective_from"), data.get("effective_to"))


def put_documents_file(root: Path | str, vault_id: str, owner_credential_file: Path | str, scope: Scope,
                       source_id: str, collection: str, revision: str, file: Path | str) -> dict[str, Any]:
    """Register a sqlite-vault source (revision included) and import a JSON-lines file in batches."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (_, _, rag, provider)):
        source = provider.source(source_id, scope, collection, revision)
        rag.register(owner, source, provider)
        added = unchanged = 0
        batch: list[RagHit] = []
        for hit in [*read_hits(Path(file), source), None]:
            if hit is not None:
                batch.append(hit)
            if batch and (hit is None or len(batch) == MAX_PUT_BATCH):
                done = provider.put_documents(owner, source, batch)
                added, unchanged, batch = added + done["added"], unchanged + done["unchanged"], []
        return {"source": source.to_dict(), "added": added, "unchanged": unchanged}


def revoke_source_file(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                       source_id: str) -> dict[str, Any]:
    """Withdraw a registered source (owner only)."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (_, _, rag, _)):
        return rag.revoke_source(owner, source_id)


def parse_versions(pairs: list[str]) -> dict[str, str] | None:
    """Versions from NAME=ID pairs (none given: None)."""
    if not pairs:
        return None
    versions: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name in versions:
            raise Refusal("bad_schedule", f"{pair!r} is not a new NAME=ID version",
                          "give each version once, as --version model=m-2026-01")
        versions[name] = value
    return versions


def freeze_schedule_file(root: Path | str, vault_id: str, owner_credential_file: Path | str, scope: Scope,
                         schedule_id: str, tasks: list[str], *, task_class: str | None = None,
                         versions: list[str] | None = None) -> dict[str, Any]:
    """Freeze a schedule's task list (and optional task class and NAME=ID versions) for a scope
    (owner only)."""
    with owner_services(root, vault_id, owner_credential_file) as (owner, (_, feedback, _, _)):
        declared_versions = parse_versions(versions or [])
        return feedback.freeze_schedule(owner, scope, schedule_id, tasks, task_class=task_class,
                                        versions=declared_versions)


# ---- restore detection and master-key rotation (owner only, never an MCP tool) ----

def adopt_preflight_file(root: Path | str, vault_id: str,
                         owner_credential_file: Path | str) -> dict[str, Any]:
    """Read-only: the home's machine binding and the scopes still to reconcile (owner only)."""
    from revetly_core.governed.adoption import preflight

    with owner_services(root, vault_id, owner_credential_file) as (owner, (evidence, _, _, _)):
        return preflight(evidence, owner)


def adopt_file(root: Path | str, vault_id: str, owner_credential_file: Path | str, adoption_id: str,
               confirm: str) -> dict[str, Any]:
    """Adopt the home on this machine under a new event id (owner only; idempotent per id)."""
    from revetly_core.governed.adoption import adopt

    with owner_services(root, vault_id, owner_credential_file) as (owner, (evidence, _, _, _)):
        return adopt(evidence, owner, adoption_id, confirm=confirm)


def rotate_master_key_file(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                           rotation_id: str) -> dict[str, Any]:
    """Re-wrap every data key under a new master key (owner only; the same id never rotates twice)."""
    owner = read_credential_file(owner_credential_file)
    evidence = EvidenceService.open(root, vault_id)
    try:
        return evidence.rotate_master_key(owner, rotation_id)
    finally:
        evidence.close()
