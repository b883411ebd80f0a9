"""FeedbackDashboard: what the local dashboard page shows and how its owner actions are applied.

The application supplies it, with three things only it can know:

- ``binding``: its trusted mapping from a person signed in at the issuer (their verified
  claims) to a ``DashboardIdentity``: the name reviews are recorded under, the application
  session (and so the scope) the screen reads with, and whether this person acts as the owner.
  It is asked again on every request, so withdrawing someone in the application takes effect
  at once. No binding supplied: the screen reports unconfigured;
- ``owner_token``: the owner credential, held in application setup and never rendered;
- ``memory_factory`` (optional): a fresh canonical-memory ``Engine`` for each request that needs
  proposals or the lifecycle. The engine's store connection is bound to the thread that opened
  it, so a threaded HTTP server must not share one engine opened at setup.

Every payload is built here; the HTTP shell renders it. What the page shows grants nothing:
each action is re-parsed from the form, refused unless the identity is the owner's, and applied
through the review path and RuleLifecycle, which check authority, sources, qualification and
versions again under their own locks. The export workflow is not on this dashboard.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from revetly_core.governed.dashboard_evidence import recent_actions
from revetly_core.governed.dashboard_rules import (
    LIFECYCLE_MOVES,
    REVIEW_ACTIONS,
    DashboardAction,
    activation_offer,
    lifecycle_controls,
    parse_action,
    require_owner_identity,
    require_writable,
    rollback_offer,
    usage_view,
)
from revetly_core.governed.feedback import FeedbackService
from revetly_core.governed.lifecycle import LIFECYCLE, RuleLifecycle, quarantined_qualifications
from revetly_core.governed.memory_binding import LOCAL_TENANT
from revetly_core.governed.principals import Session
from revetly_core.governed.proposals import Decision, ProposalService
from revetly_core.governed.scope import Scope
from revetly_core.governed.usage import FIGURES, UsageLedger
from revetly_core.governed.vault import CONTROL
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.engine import Engine
    from revetly_core.governed.dispatcher import GuardedDispatcher

MAX_SCHEDULES = 20
"""The most recently frozen schedules whose quality counts the screen shows."""
MAX_PROPOSALS = 50
MAX_NAME = 120


@dataclass(frozen=True)
class DashboardIdentity:
    """A signed-in person as the application's binding maps them: the name their decisions are
    recorded under, the application session the screen reads with, and whether they are the owner."""

    name: str
    session: Session
    owner: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not 0 < len(self.name) <= MAX_NAME:
            raise Refusal("bad-argument", f"a dashboard identity is named in 1-{MAX_NAME} characters",
                          "give the signed-in person's display name", {"field": "name"})
        if not isinstance(self.session, Session):
            raise Refusal("bad-argument", "a dashboard identity reads with an application Session",
                          "authenticate the application's credential for the scope",
                          {"field": "session"})

    @property
    def scope(self) -> Scope:
        return self.session.scope


IdentityBinding = Callable[[Mapping[str, Any]], "DashboardIdentity | None"]
"""The application's trusted binding: verified issuer claims to an identity, or None (not a
dashboard user)."""
MemoryFactory = Callable[[], "Engine"]


class FeedbackDashboard:
    """The dashboard of one vault, as the application binds it."""

    def __init__(self, feedback: FeedbackService, *, owner_token: str, binding: IdentityBinding,
                 memory_factory: MemoryFactory | None = None, memory_tenant_id: str = LOCAL_TENANT,
                 egress_class: str = "remote", runtime_versions: dict[str, str] | None = None,
                 dispatcher: GuardedDispatcher | None = None) -> None:
        feedback.evidence.principals.require_owner(owner_token)
        self.feedback = feedback
        self.evidence = feedback.evidence
        self._owner = owner_token
        self.binding = binding
        self.memory_factory = memory_factory
        self.memory_tenant_id = memory_tenant_id
        self.egress_class = egress_class
        self.runtime_versions = dict(runtime_versions or {})
        self.dispatcher = dispatcher
        self.usage = UsageLedger(feedback)

    def __repr__(self) -> str:  # the owner credential never shows in a log or a traceback
        return f"FeedbackDashboard(vault={self.evidence.home.path.name!r})"

    # ---- identity ----

    def identify(self, claims: Mapping[str, Any]) -> DashboardIdentity | None:
        """The binding's identity for verified claims; anything but a DashboardIdentity (or a
        binding that raises) signs nobody in."""
        try:
            identity = self.binding(dict(claims))
        except Exception:
            return None
        return identity if isinstance(identity, DashboardIdentity) else None

    # ---- per-request canonical memory ----

    def lifecycle(self) -> RuleLifecycle | None:
        """A lifecycle over a fresh canonical memory from the factory (None without one)."""
        if self.memory_factory is None:
            return None
        proposals = ProposalService(self.feedback, self.memory_factory(),
                                    memory_tenant_id=self.memory_tenant_id,
                                    egress_class=self.egress_class)
        return RuleLifecycle(proposals, runtime_versions=self.runtime_versions)

    # ---- the screen ----

    def view(self, identity: DashboardIdentity, *, read_only: bool = False) -> dict[str, Any]:
        """Everything the screen shows this person: quality counts of the scope's frozen
        schedules, usage with its missing/partial states, recent actions with their arguments,
        checks and source evidence, and (for the owner) proposals with their review and
        lifecycle controls (none on a read-only endpoint). A refusal in one section is shown in
        place of that section."""
        session, scope = identity.session, identity.scope
        try:
            self.feedback.authorize(session, "read")
        except Refusal as refusal:
            return {**self._head(identity), "status": "refused", **refusal.payload()}
        return {**self._head(identity), "status": "ready", "read_only": read_only,
                "quality": self._quality(session, scope),
                "usage": self._section(lambda: usage_view(self.usage.usage(session), FIGURES)),
                "actions": self._section(lambda: recent_actions(
                    self.evidence, scope, running=self._running)),
                "proposals": self._proposals(identity)}

    def _head(self, identity: DashboardIdentity) -> dict[str, Any]:
        return {"kind": "feedback_dashboard", "version": 1,
                "signed_in": {"name": identity.name, "owner": identity.owner},
                "scope": identity.scope.to_dict(), "runtime_versions": self.runtime_versions,
                "export": "not on this dashboard: use ExampleExportService"}

    @staticmethod
    def _section(build: Callable[[], Any]) -> Any:
        try:
            return build()
        except Refusal as refusal:
            return refusal.payload()

    def _running(self, execution_id: str) -> bool:
        return self.dispatcher is not None and self.dispatcher.running(execution_id)

    def _quality(self, session: Session, scope: Scope) -> list[dict[str, Any]]:
        """Each frozen schedule of the scope (newest MAX_SCHEDULES) with its quality report."""
        schedules = self.evidence.records(CONTROL, f"schedule:{scope.key}:")[-MAX_SCHEDULES:]
        out = []
        for _, record in reversed(schedules):
            try:
                out.append(self.feedback.quality(session, record["schedule_id"]))
            except Refusal as refusal:
                out.append({"schedule_id": record["schedule_id"], **refusal.payload()})
        return out

    def _proposals(self, identity: DashboardIdentity) -> dict[str, Any]:
        if not identity.owner:
            return {"available": False, "reason": "proposals are the owner's review surface"}
        lifecycle = self.lifecycle()
        if lifecycle is None:
            return {"available": False, "reason": "no canonical memory is bound to this dashboard "
                    "(memory_factory), so proposals cannot be reviewed here"}
        try:
            listed = lifecycle.proposals.proposals(self._owner, identity.scope)["proposals"]
            qualifications = [r for _, r in self.evidence.records(
                identity.scope.partition(LIFECYCLE), "qual-")]
            items = [self._proposal(lifecycle, identity.scope, row, qualifications)
                     for row in reversed(listed[-MAX_PROPOSALS:])]
        except Refusal as refusal:
            return {"available": False, **refusal.payload()}
        return {"available": True, "count": len(listed), "items": items}

    def _proposal(self, lifecycle: RuleLifecycle, scope: Scope, row: dict[str, Any],
                  qualifications: list[dict[str, Any]]) -> dict[str, Any]:
        full = lifecycle.proposals.proposal(self._owner, scope, row["proposal_id"])
        approved = row["status"] == "approved"
        history = lifecycle.history(scope, row["proposal_id"])
        state = history[-1]["state"] if history else None
        mine = [q for q in qualifications if q["proposal_id"] == row["proposal_id"]]
        return {**row, "candidate": full["candidate"], "compiled": full["compiled"],
                "sources": full["sources"], "decision": full["decision"],
                "review_open": row["status"] == "pending_review",
                "lifecycle": {"state": state, "generation": history[-1]["generation"] if history
                              else None,
                              "controls": lifecycle_controls(state, approved),
                              "activation": activation_offer(
                                  mine, lifecycle.runtime_versions, self.evidence.clock(),
                                  approved=approved, state=state,
                                  quarantined=frozenset(quarantined_qualifications(history))),
                              "rollback_to": rollback_offer(history),
                              "qualifications": [{k: q[k] for k in (
                                  "qualification_id", "verdict", "qualifier", "qualifier_kind",
                                  "evidence", "runtime_versions", "expires_at")} for q in mine]}}

    # ---- actions ----

    def act(self, identity: DashboardIdentity, form: Mapping[str, object], *,
            read_only: bool = False) -> dict[str, Any]:
        """Apply one posted owner action (review, activate, rollback, shadow, suspend, revoke) for
        the identity's scope; every check is made again by the path that applies it."""
        try:
            action = parse_action(form)
            require_writable(read_only, action)
            require_owner_identity(identity.owner, action)
            lifecycle = self.lifecycle()
            if lifecycle is None:
                raise Refusal("memory-not-bound", "no canonical memory is bound to this dashboard",
                              "the application passes memory_factory to FeedbackDashboard")
            answer = self._apply(lifecycle, identity, action)
        except Refusal as refusal:
            return refusal.payload()
        return {"kind": "dashboard_action", "version": 1, "action": action.action,
                "target": action.target, "scope": identity.scope.to_dict(), "answer": answer}

    def _apply(self, lifecycle: RuleLifecycle, identity: DashboardIdentity,
               action: DashboardAction) -> dict[str, Any]:
        scope, owner = identity.scope, self._owner
        if action.action in REVIEW_ACTIONS:
            decision: Decision = "approve" if action.action == "approve" else "reject"
            return lifecycle.proposals.review(owner, scope, action.target, decision,
                                              reviewer=identity.name, reason=action.reason or None)
        if action.action == "activate":
            assert action.qualification_id is not None
            return lifecycle.activate(owner, scope, action.target, action.qualification_id)
        if action.action == "rollback":
            assert action.generation is not None
            return lifecycle.rollback(owner, scope, action.target, action.generation)
        move = {"shadow": lifecycle.shadow, "suspend": lifecycle.suspend,
                "revoke": lifecycle.revoke}[action.action]
        assert action.action in LIFECYCLE_MOVES
        return move(owner, scope, action.target, reason=action.reason)
