"""A connection bound to one project: which project a call addresses, and what it may not name."""

from __future__ import annotations

from typing import Any

from revetly_core.config import Config
from revetly_core.refusal import Refusal


def declared_binding(config: Config, name: str | None) -> str | None:
    """The project a server binds to, checked before it answers anything; None when unbound."""
    if name is None:
        return None
    names = config.project_names
    if name not in names:
        raise Refusal(
            "unknown-project", f"--project {name!r} is not a project this instance declares",
            f"bind to one of: {', '.join(names)}", {"argument": "project", "declared": names},
        )
    return name


def named_projects(requested: str | list[str] | None) -> list[str]:
    """The project names a call's project argument holds (a name, a comma list, or a list)."""
    if requested is None:
        return []
    items = requested if isinstance(requested, list) else requested.split(",")
    return [p.strip() for p in items if p and p.strip()]


def address_project(bound: str | None, requested: str | list[str] | None, tool: str, *,
                    write: bool = False) -> str | list[str] | None:
    """The project a call reads or writes as: the bound one unless another is named (refused)."""
    if bound is None:
        return requested
    others = [p for p in named_projects(requested) if p != bound]
    if others:
        extra: dict[str, Any] = {"bound_to": bound, "named": others}
        if write:
            extra["wrote"] = False
        raise Refusal(
            "bound-to-another-project",
            f"this connection is bound to project {bound!r}; {tool} named {', '.join(others)}",
            f"call {tool} without project (or with project={bound!r}), or connect a server "
            f"started with --project {others[0]}", extra,
        )
    return bound


def state_project(payload: dict[str, Any], bound: str | None) -> dict[str, Any]:
    """An answer on a bound connection says which project answered (unless it already does)."""
    if bound is None or "project" in payload or "projects" in payload:
        return payload
    if "refusal" in payload:
        payload["refusal"].setdefault("project", bound)
        return payload
    return {"project": bound, **payload}


def answer_as_bound(payload: dict[str, Any], bound: str | None) -> dict[str, Any]:
    """A tool that takes no project (context_health) answers on a bound connection as the bound
    project, whatever the instance's default is."""
    if bound is None or "refusal" in payload:
        return state_project(payload, bound)
    if "project" in payload:
        return {k: (bound if k == "project" else v) for k, v in payload.items()}
    return {"project": bound, **payload}
