"""The status of one guarded execution, derived from its retained records (never stored as a flag).

Records of an execution, all append-only in the scope's ``#executions`` partition:
the admission ``exec-…``, a hold link ``hold:<tool>:<n>`` naming it, an outcome
``outcome:<execution_id>`` (acknowledged, uncertain or not_dispatched) and, after an owner's
reconcile, ``reconcile:<execution_id>``. What the records say decides the status and whether
the execution still holds its scope/tool.
"""

from __future__ import annotations

from typing import Any, Literal

Status = Literal["admitted", "dispatching", "unknown", "uncertain", "acknowledged", "not_dispatched",
                 "reconciled"]

HOLDING: frozenset[str] = frozenset({"dispatching", "unknown", "uncertain"})
"""Statuses whose hold stands: the effect may have happened and nobody has shown otherwise."""

EXECUTIONS = "executions"


def hold_link_id(tool: str, n: int) -> str:
    """The id of the n-th hold link of a tool in a scope (n counts from 1)."""
    return f"hold:{tool}:{n:08d}"


def execution_status(*, held: bool, outcome: dict[str, Any] | None, reconciled: dict[str, Any] | None,
                     running: bool) -> Status:
    """One execution's status from its records and whether this process is still running its handler.

    A reconcile record wins; then the outcome; a hold without an outcome is in flight here
    (dispatching) or, when no handler runs here, unknown (a process died or another holds it)."""
    if reconciled is not None:
        return "reconciled"
    if outcome is not None:
        return outcome["status"]  # type: ignore[no-any-return]
    if not held:
        return "admitted"
    return "dispatching" if running else "unknown"


def holds(status: Status) -> bool:
    """Whether an execution in this status still holds its scope/tool against new executions."""
    return status in HOLDING
