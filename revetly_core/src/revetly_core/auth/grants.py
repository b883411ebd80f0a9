"""Grants: the claims in a token decide which projects answer ([auth.grants])."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from revetly_core.config import Config, GrantsSection
from revetly_core.reads.envelope import spanned_names
from revetly_core.refusal import Refusal


def check_grants(config: Config) -> None:
    """Every project a grant names is declared (a refusal at startup names the entry)."""
    grants = config.auth.grants
    if grants is None:
        return
    declared = set(config.project_names)
    for value, projects in grants.values.items():
        for project in projects:
            if project not in declared:
                raise Refusal("refused", f"[auth.grants] values.{value} names project "
                              f"{project!r}, which is not declared",
                              f"name one of: {', '.join(sorted(declared))}",
                              {"setting": f"auth.grants.values.{value}"})


def claim_values(grants: GrantsSection, claims: Mapping[str, Any]) -> list[str]:
    """The values the token carries under the grant's claim (a string is one value)."""
    raw = claims.get(grants.claim)
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list):
        return [v for v in raw if isinstance(v, str)]
    return []


def granted_projects(config: Config, claims: Mapping[str, Any], bound: str | None) -> list[str] | None:
    """The projects this caller reaches: None where the instance declares no grants (nothing
    is narrowed); else the declared projects its claim values reach, narrowed to the bound
    project on a bound connection."""
    grants = config.auth.grants
    if grants is None:
        return None
    declared = set(config.project_names)
    reached = sorted({p for v in claim_values(grants, claims) for p in grants.values.get(v, [])
                      if p in declared})
    if bound is not None:
        return [bound] if bound in reached else []
    return reached


def grant_key(config: Config, claims: Mapping[str, Any]) -> dict[str, Any]:
    """The `grant` payload key of a caller whose grant reaches no project: the claim, the
    values it carried, and why they reach nothing (no project, count or roster named)."""
    grants = config.auth.grants
    assert grants is not None
    values = claim_values(grants, claims)
    named = [v for v in values if v in grants.values]
    why = ("an [auth.grants] entry names these values and reaches no declared project"
           if named else "no [auth.grants] entry here names these values")
    return {"claim": grants.claim, "values": values, "reaches": "nothing", "why": why}


def grant_project(granted: Sequence[str], asked: str | None, default: str, tool: str) -> str:
    """The project a granted call addresses: the one asked if granted (or each of a comma
    list, for a spanning read); naming none, the default if granted, else the first granted;
    a project outside the grant is refused by name."""
    named = spanned_names(asked)
    if not named:
        return default if default in granted else granted[0]
    outside = [p for p in named if p not in granted]
    if outside:
        raise Refusal("outside-grant", f"{tool} names project {', '.join(map(repr, outside))}, "
                      "which this token's grant does not reach",
                      f"name a project your grant reaches ({', '.join(granted)}), or ask "
                      "the operator for a grant", {"project": ",".join(outside)})
    return ",".join(named)


def no_grant_refusal(tool: str) -> Refusal:
    """What every call answers for a caller whose grant reaches no project."""
    return Refusal("outside-grant", f"{tool} is not answered: this token's grant reaches no "
                   "project of this instance",
                   "ask the operator for a grant ([auth.grants]); `revetly doctor --token` "
                   "shows what a token is granted", {"wrote": False})
