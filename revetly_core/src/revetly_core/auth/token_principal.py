"""Who a verified token says the caller is: the issuer's sub, with name and email if published."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from revetly_core.writes.principal import Principal, is_machine_name

MACHINE_GRANT_TYPES = frozenset({"client_credentials", "client-credentials"})


def token_source(issuer: str | None) -> str:
    """The principal's source for a token: `token:<iss>`, so two issuers never collide."""
    return f"token:{issuer or 'unknown-issuer'}"


def is_machine_token(claims: Mapping[str, Any]) -> bool:
    """A token no person signed in for: a client-credentials grant, or sub = the client id."""
    gty = claims.get("gty") or claims.get("grant_type")
    if isinstance(gty, str) and gty in MACHINE_GRANT_TYPES:
        return True
    sub = claims.get("sub")
    client = claims.get("client_id") or claims.get("azp")
    return isinstance(sub, str) and sub != "" and sub == client


def principal_of_claims(claims: Mapping[str, Any]) -> Principal:
    """The verified principal a served call records: name is the `sub` (the stable id the
    approver floor compares), email where the issuer publishes one."""
    sub = str(claims.get("sub") or "")
    display = claims.get("name")
    email = claims.get("email")
    machine = is_machine_token(claims) or is_machine_name(sub) or (
        isinstance(display, str) and is_machine_name(display))
    return Principal(sub, "machine" if machine else "person", True,
                     token_source(claims.get("iss") if isinstance(claims.get("iss"), str) else None),
                     email if isinstance(email, str) and email else None)


def subject_record(claims: Mapping[str, Any]) -> dict[str, Any]:
    """sub, iss, and name / email where published: what an audit line names."""
    out: dict[str, Any] = {"sub": claims.get("sub"), "iss": claims.get("iss")}
    for key in ("name", "email"):
        if isinstance(claims.get(key), str) and claims[key]:
            out[key] = claims[key]
    return out
