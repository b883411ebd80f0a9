"""What the review page shows and how its answer is applied: core's own review path, under
the signed-in person's verified principal, with the served approver floor (spec §3a)."""

from __future__ import annotations

from typing import Any

from revetly_core.auth.grants import granted_projects
from revetly_core.auth.served_surface import Caller, ServedSurface
from revetly_core.refusal import Refusal

PAGE_DECISIONS = ("approve", "reject", "withdraw")
DECIDED_VIA_PAGE = "url"


def check_page_decision(value: object) -> str:
    """The page answers approve, reject or withdraw; anything else is refused naming them."""
    if value not in PAGE_DECISIONS:
        raise Refusal("bad-argument", f"decision {value!r} is not one the review page answers",
                      f"answer one of: {', '.join(PAGE_DECISIONS)}", {"field": "decision"})
    return str(value)


def outside_grant_refusal(surface: ServedSurface, caller: Caller,
                          project: object) -> Refusal | None:
    """A person whose [auth.grants] do not reach the review's project neither reads nor
    answers it (no grants declared narrows nothing)."""
    granted = granted_projects(surface.engine.config, caller.claims, surface.bound)
    if granted is None or project in granted:
        return None
    return Refusal("outside-grant", "this review belongs to a project your grant does not "
                   "reach", "ask the operator for a grant ([auth.grants]), or have a person "
                   "it reaches answer the review", {"wrote": False})


def page_view(surface: ServedSurface, caller: Caller, review_id: str) -> dict[str, Any]:
    """The review as the page shows it, state and whole draft; a refusal for a review not
    on record or outside the caller's grant."""
    try:
        view = dict(surface.engine.show_review(review_id))
    except Refusal as refusal:
        return refusal.payload()
    refused = outside_grant_refusal(surface, caller, view.get("project"))
    return refused.payload() if refused is not None else view


def still_waiting(view: dict[str, Any]) -> bool:
    """The page offers a decision only for a review that is still pending."""
    return "refusal" not in view and view.get("status") == "pending"


def decide_on_page(surface: ServedSurface, caller: Caller, review_id: str, decision: str,
                   reason: str | None = None) -> dict[str, Any]:
    """Apply the page's answer as `caller`: resolve_review for approve/reject, withdraw_review
    for withdraw, both recorded decided_via "url" (attributed, audited, floor-checked)."""
    try:
        check_page_decision(decision)
        refused = outside_grant_refusal(surface, caller,
                                        surface.engine.review_state(review_id).get("project"))
    except Refusal as refusal:
        return refusal.payload()
    if refused is not None:
        return refused.payload()
    reason = reason or None
    if decision == "withdraw":
        return surface.call_as(caller, "withdraw_review",
                               {"review_id": review_id, "reason": reason},
                               decided_via=DECIDED_VIA_PAGE)
    return surface.call_as(caller, "resolve_review",
                           {"review_id": review_id, "decision": decision, "reason": reason},
                           decided_via=DECIDED_VIA_PAGE)


def decision_recorded(payload: dict[str, Any]) -> bool:
    """The answer closed the review now (or found it already closed): the link is spent."""
    if "refusal" in payload:
        return False
    return payload.get("answered_now") is True or payload.get("status") not in (None, "pending")
