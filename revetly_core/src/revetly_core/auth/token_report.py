"""`revetly doctor --token`: what a token would be granted here, before a client uses it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from revetly_core.auth.grants import grant_key, granted_projects
from revetly_core.auth.token_principal import principal_of_claims, subject_record
from revetly_core.config import Config


def token_report(config: Config, resource: str, claims: Mapping[str, Any] | None,
                 reason: str | None, bound: str | None = None) -> dict[str, Any]:
    """The verdict on one token: refused with the reason, or who it is, whether it may
    approve, and the projects its grant reaches (or the `grant` key when it reaches none)."""
    out: dict[str, Any] = {"resource": resource, "issuer": config.auth.issuer}
    if claims is None:
        out["token"] = {"verified": False, "reason": reason or "refused"}
        return out
    principal = principal_of_claims(claims)
    out["token"] = {"verified": True, **subject_record(claims), "principal": principal.record(),
                    "may_approve": principal.kind == "person",
                    "scopes": str(claims.get("scope") or "").split()}
    granted = granted_projects(config, claims, bound)
    if granted is None:
        out["projects"] = list(config.project_names)
        out["grants"] = "none declared: every project answers"
    elif granted:
        out["projects"] = granted
    else:
        out["projects"] = []
        out["grant"] = grant_key(config, claims)
    return out
