"""Owner set-up workflows over files: create a home, grant, revoke, import passages, freeze schedules.

These are what `revetly rag owner ...` runs. Credentials only ever travel through owner-private
files: the owner credential is read from one, a new application credential is written to one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from revetly_core.governed.home import write_private_file
from revetly_core.governed.local import open_services
from revetly_core.governed.principals import read_credential_file
from revetly_core.governed.provider_sqlite import MAX_PUT_BATCH
from revetly_core.governed.scope import Scope
from revetly_core.governed.sources import RagHit, RagSource
from revetly_core.governed.vault import EvidenceService
from revetly_core.refusal import Refusal

MAX_IMPORT_LINE = 256 * 1024
HIT_FIELDS = {"document_id", "chunk_id", "passage", "citation", "locator", "jurisdiction",
              "effective_from", "effective_to"}


def init_home(root: Path | str, vault_id: str, owner_credential_file: Path | str) -> dict[str, Any]:
    """Create a home and write its owner credential to a new 0600 file (never printed)."""
    path = Path(owner_credential_file)
    if path.exists():
        raise Refusal("file_exists", f"{path} already exists", "choose a new credential file")
    evidence, token = EvidenceService.create(root, vault_id)
    try:
        write_private_file(path, token.encode() + b"\n")
    finally:
        evidence.close()
    return {"home": str(evidence.home.path), "owner_credential_file": str(path)}


def parse_expiry(expires: str | None, days: float | None, now: datetime) -> datetime:
    """An expiry from an ISO instant (with zone) or a number of days from now; one of them is required."""
    if (expires is None) == (days is None):
        raise Refusal("bad_expiry", "give exactly one of an expiry instant or a number of days",
                      "e.g. --expires 2026-12-31T00:00:00+00:00 or --days 30")
    if days is not None:
        return now + timedelta(days=days)
    assert expires is not None
    try:
        when = datetime.fromisoformat(expires.replace("Z", "+00:00"))
    except ValueError:
        raise Refusal("bad_expiry", f"{expires!r} is not an ISO date-time",
                      "use 2026-12-31T00:00:00Z") from None
    if when.tzinfo is None:
        raise Refusal("bad_expiry", "an expiry needs a time zone", "add Z or +00:00")
    return when.astimezone(UTC)


def grant_from_files(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                     app_credential_file: Path | str, scope: Scope, operations: list[str],
                     expires: str | None, days: float | None, name: str = "application") -> dict[str, Any]:
    """Grant operations in a scope to the application whose credential file is given.

    A missing application credential file is created with a new credential (0600)."""
    owner = read_credential_file(owner_credential_file)
    evidence, _, rag, _ = open_services(root, vault_id)
    try:
        app_path = Path(app_credential_file)
        issued = False
        if app_path.exists():
            principal_id = evidence.principals.principal_id_of(read_credential_file(app_path))
            evidence.principals.require_owner(owner)
        else:
            principal_id, token = evidence.principals.issue_credential(owner, name)
            write_private_file(app_path, token.encode() + b"\n")
            issued = True
        expiry = parse_expiry(expires, days, evidence.clock())
        grant = evidence.principals.grant(owner, principal_id, operations, scope, expiry)
        return {"grant": grant.to_dict(), "credential_issued": issued, "app_credential_file": str(app_path)}
    finally:
        rag.close()
        evidence.close()


def revoke_from_files(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                      grant_id: str | None, app_credential_file: Path | str | None) -> dict[str, Any]:
    """Revoke one grant, or an application credential named by its file."""
    owner = read_credential_file(owner_credential_file)
    evidence, _, rag, _ = open_services(root, vault_id)
    try:
        if (grant_id is None) == (app_credential_file is None):
            raise Refusal("bad_revoke", "name exactly one of a grant or an application credential file",
                          "--grant GRANT_ID or --app-credential-file FILE")
        if grant_id is not None:
            return evidence.principals.revoke_grant(owner, grant_id)
        assert app_credential_file is not None
        principal_id = evidence.principals.principal_id_of(read_credential_file(app_credential_file))
        return evidence.principals.revoke_principal(owner, principal_id)
    finally:
        rag.close()
        evidence.close()


def list_grants(root: Path | str, vault_id: str, owner_credential_file: Path | str) -> dict[str, Any]:
    """Every grant and its state (owner only)."""
    owner = read_credential_file(owner_credential_file)
    evidence, _, rag, _ = open_services(root, vault_id)
    try:
        return {"grants": evidence.principals.grants(owner)}
    finally:
        rag.close()
        evidence.close()


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
    owner = read_credential_file(owner_credential_file)
    evidence, _, rag, provider = open_services(root, vault_id)
    try:
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
    finally:
        rag.close()
        evidence.close()


def revoke_source_file(root: Path | str, vault_id: str, owner_credential_file: Path | str,
                       source_id: str) -> dict[str, Any]:
    """Withdraw a registered source (owner only)."""
    owner = read_credential_file(owner_credential_file)
    evidence, _, rag, _ = open_services(root, vault_id)
    try:
        return rag.revoke_source(owner, source_id)
    finally:
        rag.close()
        evidence.close()


def freeze_schedule_file(root: Path | str, vault_id: str, owner_credential_file: Path | str, scope: Scope,
                         schedule_id: str, tasks: list[str]) -> dict[str, Any]:
    """Freeze a schedule's task list for a scope (owner only)."""
    owner = read_credential_file(owner_credential_file)
    evidence, feedback, rag, _ = open_services(root, vault_id)
    try:
        return feedback.freeze_schedule(owner, scope, schedule_id, tasks)
    finally:
        rag.close()
        evidence.close()
