"""The surface a served (HTTP) endpoint answers: the caller's own principal on every write,
the read-only switch, and one audit line per call."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from revetly_core.auth.audit import AuditLog, audit_line, outcome_of, project_of
from revetly_core.auth.grants import (
    grant_key,
    grant_project,
    granted_projects,
    no_grant_refusal,
)
from revetly_core.auth.token_principal import principal_of_claims, subject_record
from revetly_core.engine import Engine
from revetly_core.refusal import Refusal
from revetly_core.surface.binding import state_project
from revetly_core.surface.catalogue import tool_spec
from revetly_core.surface.surface import Surface
from revetly_core.writes.principal import Principal


@dataclass(frozen=True)
class Caller:
    """Who a served call came from: the verified token's claims, or nobody (loopback)."""

    claims: dict[str, Any] = field(default_factory=dict)

    @property
    def authenticated(self) -> bool:
        return bool(self.claims.get("sub"))

    def principal(self) -> Principal | None:
        """The verified principal, or None (a loopback caller resolves locally, as stdio)."""
        return principal_of_claims(self.claims) if self.authenticated else None

    def subject(self) -> dict[str, Any] | None:
        return subject_record(self.claims) if self.authenticated else None


ANONYMOUS = Caller()


def is_write(name: str) -> bool:
    """A tool that changes the instance: every write, and the reviewer's deciding tools."""
    spec = tool_spec(name)
    return spec.kind == "write" or (spec.kind == "reviewer" and not spec.read_only)


def read_only_refusal(name: str) -> Refusal:
    """The answer every write gets from a read-only endpoint, naming the tool."""
    return Refusal("read-only", f"{name} writes, and this endpoint serves reads only",
                   f"call {name} over stdio (revetly serve) or on an endpoint that is not "
                   "read-only ([served] read_only / --read-only)",
                   {"tool": name, "setting": "served.read_only", "wrote": False})


ATTRIBUTED_ROLES = ("principal", "drafter", "approver")
"""The arguments through which a core write records who acted."""


def served_call_arguments(method: Callable[..., Any], caller: Caller) -> dict[str, Any]:
    """What a served call adds to an engine write: the token's principal as whoever the write
    records (`principal`, `drafter` or `approver`), and `served` where the approver floor
    reads it."""
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return {}
    out: dict[str, Any] = {}
    principal = caller.principal()
    if principal is not None:
        for role in ATTRIBUTED_ROLES:
            if role in params:
                out[role] = principal
    if "served" in params:
        out["served"] = caller.authenticated
    return out


class ServedSurface(Surface):
    """Surface.call for an endpoint: attribution from the caller, read-only, audit."""

    def __init__(self, engine: Engine, project: str | None = None, *,
                 caller: Callable[[], Caller] = lambda: ANONYMOUS, read_only: bool = False,
                 audit: AuditLog | None = None) -> None:
        super().__init__(engine, project)
        self.caller = caller
        self.read_only = read_only
        self.audit = audit

    def call(self, name: str, arguments: dict[str, Any], **options: Any) -> dict[str, Any]:
        return self.call_as(self.caller(), name, arguments, **options)

    def call_as(self, caller: Caller, name: str, arguments: dict[str, Any],
                **options: Any) -> dict[str, Any]:
        """One call on behalf of a given caller (the review page's signed-in person)."""
        granted = granted_projects(self.engine.config, caller.claims, self.bound) \
            if caller.authenticated else None
        if self.read_only and name in self.served() and is_write(name):
            payload = state_project(read_only_refusal(name).payload(), self.bound)
        elif granted is not None and not granted:
            payload = {**no_grant_refusal(name).payload(),
                       "grant": grant_key(self.engine.config, caller.claims)}
        else:
            asked = arguments.get("project")
            elsewhere = self.bound is not None and asked not in (None, self.bound)
            if granted is not None and tool_spec(name).takes_project and not elsewhere:
                try:
                    arguments = {**arguments, "project": grant_project(
                        granted, arguments.get("project"), self.bound or
                        self.engine.config.default_project, name)}
                except Refusal as refusal:
                    payload = state_project(refusal.payload(), self.bound)
                    return self._audited(caller, name, arguments, payload)
            extra = served_call_arguments(tool_spec(name).call, caller) \
                if name in self.served() else {}
            for key, value in extra.items():
                options.setdefault(key, value)
            payload = super().call(name, arguments, **options)
        return self._audited(caller, name, arguments, payload)

    def _audited(self, caller: Caller, name: str, arguments: dict[str, Any],
                 payload: dict[str, Any]) -> dict[str, Any]:
        """The call's one audit line, then its answer."""
        if self.audit is not None:
            project = project_of(payload, arguments) or self.bound or \
                self.engine.config.default_project
            self.audit.append(audit_line(caller.subject(), name, project, outcome_of(payload)))
        return payload
