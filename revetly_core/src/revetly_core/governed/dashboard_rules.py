"""The FeedbackDashboard's rules: which actions a posted form may name, who may take them, how
usage shows missing and partial capture, and when activation and rollback are offered.

Everything the page shows is information; nothing it shows grants anything. A posted action
names only an action, a proposal id and what that action needs (a reason, a qualification id, a
generation); the scope and the reviewer come from the signed-in identity, and the lifecycle and
the review path check every condition again when the action is applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from revetly_core.auth.served_surface import read_only_refusal
from revetly_core.governed.lifecycle import quarantined_qualifications, transition_allowed
from revetly_core.governed.proposals import check_proposal_id
from revetly_core.refusal import Refusal

REVIEW_ACTIONS = ("approve", "reject")
LIFECYCLE_MOVES: dict[str, Literal["shadow", "suspended", "revoked"]] = {
    "shadow": "shadow", "suspend": "suspended", "revoke": "revoked"}
DASHBOARD_ACTIONS = (*REVIEW_ACTIONS, "activate", "rollback", *LIFECYCLE_MOVES)
MAX_REASON = 2000
UsageState = Literal["missing", "partial", "overflow", "complete"]
DIAGNOSTIC_ONLY = ("activation is unavailable: no accepted qualification. The built-in qualifier "
                   "is diagnostic and always inconclusive; only the application's trusted "
                   "qualifier can qualify this candidate")


@dataclass(frozen=True)
class DashboardAction:
    """One state-changing request from the page, validated."""

    action: str
    target: str
    reason: str = ""
    qualification_id: str | None = None
    generation: int | None = None


def _field(form: Mapping[str, object], name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) and value != "" else None


def parse_action(form: Mapping[str, object]) -> DashboardAction:
    """A posted action from untrusted form fields: a known action on a proposal id, a reason of at
    most 2,000 characters, a qualification id for activate and a generation number for rollback."""
    action = _field(form, "action")
    if action not in DASHBOARD_ACTIONS:
        raise Refusal("bad-argument", f"action {action!r} is not one the dashboard takes",
                      f"post one of: {', '.join(DASHBOARD_ACTIONS)}", {"field": "action"})
    target = check_proposal_id(_field(form, "target") or "")
    reason = _field(form, "reason") or ""
    if len(reason) > MAX_REASON:
        raise Refusal("bad-argument", f"a reason is at most {MAX_REASON} characters",
                      "shorten the reason", {"field": "reason"})
    qualification = _field(form, "qualification")
    if action == "activate" and (qualification is None or not qualification.startswith("qual-")):
        raise Refusal("bad-argument", "activation names the qualification it rests on",
                      "choose an accepted qualification on the page", {"field": "qualification"})
    generation: int | None = None
    if action == "rollback":
        raw = _field(form, "generation") or ""
        if not raw.isdigit() or not 0 < int(raw) < 10**8:
            raise Refusal("bad-argument", f"generation {raw!r} is not a generation number",
                          "choose a previous active generation on the page", {"field": "generation"})
        generation = int(raw)
    return DashboardAction(action, target, reason, qualification if action == "activate" else None,
                           generation)


def require_owner_identity(owner: bool, action: DashboardAction) -> None:
    """Every dashboard action is the owner's: a signed-in person the application does not bind as
    the owner is refused, whatever the page they posted from showed."""
    if not owner:
        raise Refusal("not-owner", f"{action.action} is an owner action, and your sign-in is not "
                      "bound to the owner", "ask the owner to do it, or the application to bind "
                      "your identity as the owner", {"wrote": False})


def require_writable(read_only: bool, action: DashboardAction) -> None:
    """An endpoint that serves reads only ([served] read_only / --read-only) takes no dashboard
    action: the page shows, nothing is written."""
    if read_only:
        raise read_only_refusal(f"dashboard {action.action}")


def usage_state(figure: Mapping[str, Any], receipts: int) -> UsageState:
    """How one usage figure reads: missing (nothing captured: null, not zero), partial (a part is
    unknown, so the total is null and the known subtotal stands apart), overflow, or complete."""
    if receipts == 0 or (figure.get("total") is None and figure.get("known_subtotal") is None):
        return "missing"
    if figure.get("total") == "overflow" or figure.get("known_subtotal") == "overflow":
        return "overflow"
    if figure.get("unknown", 0) > 0:
        return "partial"
    return "complete"


def usage_view(totals: Mapping[str, Any], figures: tuple[str, ...]) -> dict[str, Any]:
    """The usage totals with each figure's state beside it."""
    receipts = int(totals.get("receipts", 0))
    return {**totals, "states": {f: usage_state(totals[f], receipts) for f in figures}}


def lifecycle_controls(state: str | None, approved: bool) -> list[str]:
    """The moves the page offers a reviewed rule in its current state: those the lifecycle allows
    unchecked (shadow from active, suspend from active or shadow, revoke unless revoked)."""
    if not approved:
        return []
    return [move for move, target in LIFECYCLE_MOVES.items()
            if transition_allowed(state, target, checked=False)]  # type: ignore[arg-type]


def usable_qualifications(qualifications: list[dict[str, Any]], runtime_versions: Mapping[str, str],
                          now: datetime) -> list[dict[str, Any]]:
    """The qualifications an activation may name now: accepted, unexpired, and made under exactly
    the runtime versions this dashboard runs with."""
    return [q for q in qualifications if q.get("verdict") == "accepted"
            and now < datetime.fromisoformat(q["expires_at"])
            and q.get("runtime_versions") == dict(runtime_versions)]


def activation_offer(qualifications: list[dict[str, Any]], runtime_versions: Mapping[str, str],
                     now: datetime, *, approved: bool, state: str | None,
                     quarantined: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Whether the page offers activation, with the qualifications it may name, or why not. With
    only diagnostic qualifications (always inconclusive) it is unavailable and says so; one a
    restore quarantined is never offered."""
    usable = [q for q in usable_qualifications(qualifications, runtime_versions, now)
              if q["qualification_id"] not in quarantined]
    if not approved:
        reason = "activation needs an approved review first"
    elif state == "revoked":
        reason = "the rule is revoked: nothing revives it"
    elif usable:
        return {"available": True, "qualifications": [q["qualification_id"] for q in usable],
                "reason": None}
    elif state == "quarantined":
        reason = ("the rule is quarantined after a restore: activation needs a fresh "
                  "qualification")
    elif all(q.get("qualifier_kind") == "diagnostic" for q in qualifications):
        reason = DIAGNOSTIC_ONLY
    else:
        reason = ("activation is unavailable: no accepted, unexpired qualification made under "
                  "the current runtime versions")
    return {"available": False, "qualifications": [], "reason": reason}


def rollback_offer(history: list[dict[str, Any]]) -> list[int]:
    """The earlier generations a rollback may be requested to: those that were active, while the
    rule is not revoked, and not under a qualification a restore quarantined (the lifecycle
    checks each again when asked)."""
    if not history or history[-1]["state"] == "revoked":
        return []
    spent = quarantined_qualifications(history)
    return [g["generation"] for g in history[:-1] if g["state"] == "active"
            and g.get("qualification_id") not in spent]
