"""Principals and capabilities: the owner, application credentials and their grants.

Credentials are random tokens handed out once and kept only as SHA-256 hashes in the vault's
``control`` partition. A grant gives one application principal explicit operations for one
scope until an expiry; revocations are appended records. Every check reads the current records
and the injected clock, so a revocation or an expiry takes effect on the next check.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from revetly_core.governed.home import read_private_file
from revetly_core.governed.scope import Scope
from revetly_core.governed.vault import CONTROL
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.governed.vault import EvidenceService

OPERATIONS = ("execute", "inspect", "propose", "read", "report", "search", "verify")
"""Operations an owner may grant today; later layers add their own names (execute, propose ...)."""

OWNER_PREFIX = "rvo_"
APP_PREFIX = "rva_"


def token_hash(token: str) -> str:
    """The stored form of a credential: hex SHA-256 of the token (tokens carry 256 random bits)."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token(prefix: str) -> str:
    """A fresh credential: a kind prefix and 256 random bits, URL-safe."""
    return prefix + secrets.token_urlsafe(32)


def read_credential_file(path: Path | str) -> str:
    """The token in an owner-private credential file (never a token from an argument)."""
    token = read_private_file(Path(path), "credential file").decode("utf-8", "replace").strip()
    if not token.startswith((OWNER_PREFIX, APP_PREFIX)) or len(token) > 128 or not token.isascii():
        raise Refusal("bad_credential_file", f"{path} does not hold a Revetly credential",
                      "point at the file written by `revetly rag owner init` or `owner grant`")
    return token


def check_operations(operations: Iterable[str]) -> tuple[str, ...]:
    """Operations granted must be known names; at least one."""
    ops = tuple(sorted(set(operations)))
    unknown = [op for op in ops if op not in OPERATIONS]
    if unknown or not ops:
        raise Refusal("bad_operations", f"unknown or missing operations: {unknown or '(none)'}",
                      f"grant one or more of {', '.join(OPERATIONS)}")
    return ops


def grant_is_live(grant: dict[str, Any], revoked: set[str], now: datetime) -> bool:
    """A grant counts while it is not revoked and now is strictly before its expiry."""
    return grant["grant_id"] not in revoked and now < datetime.fromisoformat(grant["expires_at"])


@dataclass(frozen=True)
class Session:
    """An authenticated application principal bound to one scope. Holds no token, only its hash."""

    principal_id: str
    scope: Scope
    _credential_hash: str = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"principal_id": self.principal_id, "scope": self.scope.to_dict()}


@dataclass(frozen=True)
class Grant:
    """What a principal may do in a scope, and until when."""

    grant_id: str
    principal_id: str
    scope: Scope
    operations: tuple[str, ...]
    expires_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"grant_id": self.grant_id, "principal_id": self.principal_id,
                "scope": self.scope.to_dict(), "operations": list(self.operations),
                "expires_at": self.expires_at.isoformat()}


class PrincipalRegistry:
    """The owner and application principals of one vault, and their grants."""

    def __init__(self, evidence: EvidenceService) -> None:
        self._evidence = evidence

    def _now(self) -> datetime:
        return self._evidence.clock()

    # ---- owner ----

    def create_owner(self) -> str:
        """Make the owner credential of a new vault; refused once an owner exists."""
        if self._evidence.get(CONTROL, "owner") is not None:
            raise Refusal("owner_exists", "this vault already has an owner credential",
                          "use the owner credential file written at set-up")
        token = new_token(OWNER_PREFIX)
        self._evidence.append(CONTROL, "owner", {"credential_hash": token_hash(token),
                                                 "created_at": self._now().isoformat()})
        return token

    def require_owner(self, owner_token: str) -> None:
        """Owner-only operations check the owner credential (constant-time comparison)."""
        owner = self._evidence.get(CONTROL, "owner")
        if owner is None or not isinstance(owner_token, str) or not hmac.compare_digest(
                owner["credential_hash"], token_hash(owner_token)):
            raise Refusal("not_owner", "this operation needs the vault owner's credential",
                          "run it from the application's set-up with the owner credential file")

    def issue_credential(self, owner_token: str, name: str,
                         token: str | None = None) -> tuple[str, str]:
        """A new application principal: (principal_id, token). The token is shown only here;
        a caller that already wrote a fresh token to its file passes it in."""
        self.require_owner(owner_token)
        if token is None:
            token = new_token(APP_PREFIX)
        elif not token.startswith(APP_PREFIX) or len(token) < len(APP_PREFIX) + 32:
            raise Refusal("bad_credential", "an application credential is a fresh rva_ token",
                          "let issue_credential make it")
        principal_id = "app-" + secrets.token_hex(8)
        self._evidence.append(CONTROL, f"principal:{principal_id}", {
            "principal_id": principal_id, "name": name[:120], "credential_hash": token_hash(token),
            "created_at": self._now().isoformat()})
        return principal_id, token

    def grant(self, owner_token: str, principal_id: str, operations: Iterable[str], scope: Scope,
              expires_at: datetime) -> Grant:
        """Give a principal explicit operations in one scope until expires_at (owner only)."""
        self.require_owner(owner_token)
        if self._evidence.get(CONTROL, f"principal:{principal_id}") is None:
            raise Refusal("no_principal", f"no application principal {principal_id}",
                          "issue a credential first")
        if expires_at.tzinfo is None:
            raise Refusal("bad_expiry", "an expiry needs a time zone", "give it in UTC, e.g. ...Z")
        if expires_at <= self._now():
            raise Refusal("bad_expiry", "the expiry is not in the future", "choose a later expiry")
        grant = Grant("grant-" + secrets.token_hex(8), principal_id, scope,
                      check_operations(operations), expires_at)
        self._evidence.append(CONTROL, f"grant:{grant.grant_id}", grant.to_dict())
        return grant

    def revoke_grant(self, owner_token: str, grant_id: str) -> dict[str, Any]:
        """Revoke one grant; it stops counting at the next check (owner only, idempotent)."""
        self.require_owner(owner_token)
        if self._evidence.get(CONTROL, f"grant:{grant_id}") is None:
            raise Refusal("no_grant", f"no grant {grant_id}", "list grants with `owner grants`")
        if self._evidence.get(CONTROL, f"grant-revoked:{grant_id}") is None:
            self._evidence.append(CONTROL, f"grant-revoked:{grant_id}",
                                  {"grant_id": grant_id, "revoked_at": self._now().isoformat()})
        return {"grant_id": grant_id, "revoked": True}

    def revoke_principal(self, owner_token: str, principal_id: str) -> dict[str, Any]:
        """Revoke an application credential entirely (owner only, idempotent)."""
        self.require_owner(owner_token)
        if self._evidence.get(CONTROL, f"principal:{principal_id}") is None:
            raise Refusal("no_principal", f"no application principal {principal_id}", "check the id")
        if self._evidence.get(CONTROL, f"principal-revoked:{principal_id}") is None:
            self._evidence.append(CONTROL, f"principal-revoked:{principal_id}",
                                  {"principal_id": principal_id, "revoked_at": self._now().isoformat()})
        return {"principal_id": principal_id, "revoked": True}

    def grants(self, owner_token: str) -> list[dict[str, Any]]:
        """Every grant with its state now (owner only)."""
        self.require_owner(owner_token)
        revoked = self._revoked_grants()
        now = self._now()
        return [{**g, "live": grant_is_live(g, revoked, now), "revoked": g["grant_id"] in revoked}
                for _, g in self._evidence.records(CONTROL, "grant:")]

    # ---- application sessions ----

    def session(self, token: str, scope: Scope) -> Session:
        """Authenticate an application credential for one scope; identity comes from the token."""
        principal = self._principal_for(token_hash(token))
        return Session(principal["principal_id"], scope, token_hash(token))

    def principal_id_of(self, token: str) -> str:
        """The principal an application credential authenticates as (refused when unknown or revoked)."""
        return str(self._principal_for(token_hash(token))["principal_id"])

    def live_grants(self, session: Session) -> list[Grant]:
        """The session's grants in force now, for its scope (credential re-checked)."""
        self._principal_for(session._credential_hash)
        revoked = self._revoked_grants()
        now = self._now()
        out = []
        for _, g in self._evidence.records(CONTROL, "grant:"):
            if (g["principal_id"] == session.principal_id and Scope.from_dict(g["scope"]) == session.scope
                    and grant_is_live(g, revoked, now)):
                out.append(Grant(g["grant_id"], g["principal_id"], session.scope,
                                 tuple(g["operations"]), datetime.fromisoformat(g["expires_at"])))
        return out

    def authorize(self, session: Session, operation: str) -> Grant:
        """The live grant allowing this operation in the session's scope, or a refusal."""
        for grant in self.live_grants(session):
            if operation in grant.operations:
                return grant
        raise Refusal("not_authorized",
                      f"no live grant allows {operation!r} for this principal in {session.scope.key}",
                      "ask the owner for a grant (it may have expired or been revoked)",
                      {"operation": operation})

    def _principal_for(self, credential_hash: str) -> dict[str, Any]:
        for _, principal in self._evidence.records(CONTROL, "principal:"):
            if hmac.compare_digest(principal["credential_hash"], credential_hash):
                pid = principal["principal_id"]
                if self._evidence.get(CONTROL, f"principal-revoked:{pid}") is not None:
                    raise Refusal("credential_revoked", "this application credential was revoked",
                                  "ask the owner for a new credential and grant")
                return principal
        raise Refusal("credential_invalid", "the credential is not an application credential of this vault",
                      "check the credential file and the vault id")

    def _revoked_grants(self) -> set[str]:
        return {g["grant_id"] for _, g in self._evidence.records(CONTROL, "grant-revoked:")}
