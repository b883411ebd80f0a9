"""ProposalService: source-grounded rule and profile proposals, reviewed by the engine's authority.

A model (a session holding ``propose``) proposes; only the owner reviews. A proposal is an
encrypted vault record in the scope's ``#proposals`` partition, idempotent by key, holding the
candidate, its compiled form (rules) and snapshots of the canonical-memory sources it cites.
Its review is a REV- record in the engine's own review store, so it appears in the engine's
review list; the engine's own resolve and withdraw refuse it, because answering it needs the
governed checks: the owner's review takes that review's lock and the instance's write lock,
then reads every source again and refuses the approval when one changed. The review decides
only whether the candidate may later be qualified; it executes and activates nothing.

Answers to the model are closed versioned receipts: ids, digests and status, never the
sources' words or a reviewer's reason.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Literal

from revetly_core.governed.guarded_tools import canonical_json
from revetly_core.governed.idempotency import check_key, record_id_for, replay_or_refuse, request_digest
from revetly_core.governed.memory_binding import LOCAL_TENANT, MemoryBinding, SourceSnapshot, tenant_prefix
from revetly_core.governed.principals import Session
from revetly_core.governed.rule_predicates import (
    ProfileCandidate,
    RuleCandidate,
    compile_rule,
    parse_profile_candidate,
    parse_rule_candidate,
)
from revetly_core.governed.scope import Scope, check_name
from revetly_core.governed.vault import CONTROL
from revetly_core.isotime import iso_utc
from revetly_core.refusal import Refusal
from revetly_core.writes.crash import crash_point
from revetly_core.writes.git_commit import held_write_lock
from revetly_core.writes.principal import Principal
from revetly_core.writes.reviews import ReviewRecord, ReviewStore

if TYPE_CHECKING:
    from revetly_core.engine import Engine
    from revetly_core.governed.feedback import FeedbackService

PROPOSALS = "proposals"
ProposalKind = Literal["rule", "profile"]
GOVERNED_REVIEW_KINDS = ("governed-rule", "governed-profile")
"""Kinds of the REV- records proposals open; the engine's resolve and withdraw refuse them."""
CRASH_POINTS = ("proposal-recorded", "proposal-reviewed")
"""Fault-injection points: the proposal kept, its REV- record not yet saved; the decision kept,
the REV- record not yet answered."""
Decision = Literal["approve", "reject"]


def check_proposal_id(proposal_id: str) -> str:
    """A proposal id is what a proposal returned: prop- and 32 hex digits."""
    if (not isinstance(proposal_id, str) or len(proposal_id) != 37 or not proposal_id.startswith("prop-")
            or any(c not in "0123456789abcdef" for c in proposal_id[5:])):
        raise Refusal("no-proposal", "not a proposal id", "use the proposal_id a proposal returned")
    return proposal_id


def review_id_for(proposal_id: str) -> str:
    """The REV- id of a proposal's review, derived from its id (a retry finds the same review)."""
    return "REV-" + hashlib.sha256(f"governed-proposal\x00{proposal_id}".encode()).hexdigest()[:16]


def candidate_digest(candidate: dict[str, Any]) -> str:
    """SHA-256 of a candidate's canonical JSON: what a review and a qualification bind."""
    return hashlib.sha256(canonical_json(candidate).encode()).hexdigest()


def proposal_receipt(record: dict[str, Any], decision: dict[str, Any] | None) -> dict[str, Any]:
    """The closed, versioned answer a model gets: ids, digests and status, no words, no notes."""
    status = "pending_review" if decision is None else {
        "approve": "approved", "reject": "rejected", "refused": "refused"}[decision["decision"]]
    return {"kind": "proposal_receipt", "version": 1, "proposal_id": record["proposal_id"],
            "proposal_kind": record["proposal_kind"], "review_id": record["review_id"],
            "status": status, "candidate_sha256": record["candidate_sha256"],
            "sources": [{"artifact_id": s["artifact_id"], "generation": s["generation"],
                         "content_sha256": s["content_sha256"]} for s in record["sources"]],
            "review": "owner only", "activation": "none"}


class ProposalService:
    """Rule and profile proposals over one FeedbackService and one bound canonical memory."""

    def __init__(self, feedback: FeedbackService, memory: Engine, *, memory_tenant_id: str = LOCAL_TENANT,
                 egress_class: str = "remote") -> None:
        self.feedback = feedback
        self.evidence = feedback.evidence
        self.binding = MemoryBinding(self.evidence, memory, memory_tenant_id=memory_tenant_id,
                                     egress_class=egress_class)
        self.memory = memory

    # ---- owner configuration ----

    def assign_tenant(self, owner_token: str, scope: Scope, tenant_id: str) -> dict[str, Any]:
        """Owner only: the tenant a scope belongs to (scopes are local until assigned)."""
        self.evidence.principals.require_owner(owner_token)
        check_name(tenant_id, "workspace")
        seq = len(self.evidence.records(CONTROL, tenant_prefix(scope)))
        record = {"scope": scope.to_dict(), "tenant_id": tenant_id, "at": self.evidence.clock().isoformat()}
        self.evidence.append(CONTROL, f"{tenant_prefix(scope)}{seq:08d}", record)
        return record

    # ---- model-facing ----

    def propose_rule(self, session: Session, candidate: RuleCandidate | dict[str, Any],
                     idempotency_key: str) -> dict[str, Any]:
        """Propose a rule grounded in canonical-memory sources; answers a closed receipt."""
        with self.feedback.metrics.measure(session.scope.key, "feedback_propose_rule"):
            parsed = candidate if isinstance(candidate, RuleCandidate) else parse_rule_candidate(candidate)
            return self._propose(session, "rule", parsed, idempotency_key)

    def propose_profile(self, session: Session, candidate: ProfileCandidate | dict[str, Any],
                        idempotency_key: str) -> dict[str, Any]:
        """Propose a bounded profile grounded in canonical-memory sources; answers a closed receipt."""
        with self.feedback.metrics.measure(session.scope.key, "feedback_propose_profile"):
            parsed = (candidate if isinstance(candidate, ProfileCandidate)
                      else parse_profile_candidate(candidate))
            return self._propose(session, "profile", parsed, idempotency_key)

    def _propose(self, session: Session, kind: ProposalKind, candidate: RuleCandidate | ProfileCandidate,
                 idempotency_key: str) -> dict[str, Any]:
        self.feedback.authorize(session, "propose")
        self.binding.require_tenant(session.scope)
        check_key(idempotency_key)
        body = candidate.model_dump(mode="json")
        partition = session.scope.partition(PROPOSALS)
        proposal_id = record_id_for("prop", session.principal_id, session.scope.key, f"proposal-{kind}",
                                    idempotency_key)
        digest = request_digest({"principal_id": session.principal_id, "kind": kind, "candidate": body})
        existing = self.evidence.get(partition, proposal_id)
        if existing is not None:
            replay_or_refuse(existing, digest)
            self._ensure_review(existing)
            return proposal_receipt(existing, self._decision(session.scope, proposal_id))
        sources = self.binding.snapshots(session.scope, candidate.sources)
        record: dict[str, Any] = {
            "proposal_id": proposal_id, "kind": "proposal", "version": 1, "proposal_kind": kind,
            "scope": session.scope.to_dict(), "proposed_by": session.principal_id,
            "proposed_at": self.evidence.clock().isoformat(), "request_sha256": digest,
            "review_id": review_id_for(proposal_id), "candidate": body,
            "candidate_sha256": candidate_digest(body),
            "compiled": compile_rule(candidate).to_dict() if isinstance(candidate, RuleCandidate) else None,
            "sources": [s.to_dict() for s in sources], "memory_tenant_id": self.binding.tenant_id,
            "egress_class": self.binding.egress_class}
        self.feedback.authorize(session, "propose")
        try:
            self.evidence.append(partition, proposal_id, record)
        except Refusal as refusal:
            if refusal.code != "record_exists":
                raise
            record = replay_or_refuse(self.evidence.get(partition, proposal_id) or {}, digest)
        crash_point("proposal-recorded")
        self._ensure_review(record)
        return proposal_receipt(record, None)

    # ---- the engine's review authority ----

    def _store(self) -> ReviewStore:
        return ReviewStore(self.memory.root, self.memory.paths.state)

    def _ensure_review(self, record: dict[str, Any]) -> None:
        """Open the proposal's REV- record when it is not on record yet (a retry after a crash)."""
        store = self._store()
        review_id = record["review_id"]
        with store.locked(review_id):
            try:
                store.load(review_id)
                return
            except Refusal as refusal:
                if refusal.code != "not-on-record":
                    raise
            now = iso_utc()
            drafter = {"name": record["proposed_by"], "kind": "machine", "verified": True,
                       "source": "governed-credential"}
            store.save(ReviewRecord(
                review_id=review_id, kind=f"governed-{record['proposal_kind']}", status="pending",
                project="governed", created_at=now, updated_at=now, drafted_by=drafter,
                draft={"title": record["candidate"]["title"], "proposal_id": record["proposal_id"],
                       "scope": record["scope"], "candidate_sha256": record["candidate_sha256"]},
                gate="parked", raises=[{"at": now, "gate": "parked", "session_id": None}]))

    def _decision(self, scope: Scope, proposal_id: str) -> dict[str, Any] | None:
        return self.evidence.get(scope.partition(PROPOSALS), f"review:{proposal_id}")

    def _record(self, scope: Scope, proposal_id: str) -> dict[str, Any]:
        record = self.evidence.get(scope.partition(PROPOSALS), check_proposal_id(proposal_id))
        if record is None:
            raise Refusal("no-proposal", f"no proposal {proposal_id} in {scope.key}",
                          "list proposals with `revetly rag owner proposals`")
        return record

    def review(self, owner_token: str, scope: Scope, proposal_id: str, decision: Decision, *,
               reviewer: str, reason: str | None = None) -> dict[str, Any]:
        """Owner only: approve or reject a proposal. An approval re-reads every source under the
        review's lock and the instance's write lock and is refused when one changed."""
        self.evidence.principals.require_owner(owner_token)
        if decision not in ("approve", "reject"):
            raise Refusal("bad-argument", f"decision {decision!r} is neither approve nor reject",
                          "pass approve or reject", {"field": "decision"})
        if not reviewer or len(reviewer) > 120:
            raise Refusal("bad-argument", "a review names its reviewer (1-120 characters)",
                          "pass the reviewer's name", {"field": "reviewer"})
        record = self._record(scope, proposal_id)
        self._ensure_review(record)
        store = self._store()
        with store.locked(record["review_id"]), held_write_lock(self.memory.paths.state, "governed-review"):
            answered = self._decision(scope, proposal_id)
            if answered is None:
                answered = self._decide(owner_token, scope, record, decision, reviewer, reason)
                crash_point("proposal-reviewed")
            self._answer_review(store, record, answered)
        if answered["decision"] == "refused":
            raise Refusal("proposal-source-changed", "; ".join(answered["problems"]),
                          "the sources changed since the proposal: propose again from the current CONTEXT",
                          {"proposal_id": proposal_id, "review_id": record["review_id"]})
        return {**proposal_receipt(record, answered), "decided_at": answered["at"],
                "reviewer": answered["reviewer"]}

    def _decide(self, owner_token: str, scope: Scope, record: dict[str, Any], decision: Decision,
                reviewer: str, reason: str | None) -> dict[str, Any]:
        """Check again under the locks and keep the decision (the governed layer's authority)."""
        self.binding.require_tenant(scope)
        problems: list[str] = []
        if Scope.from_dict(record["scope"]) != scope:
            problems.append("the proposal belongs to another scope")
        if decision == "approve":
            problems += self.binding.recheck(SourceSnapshot.from_dict(s) for s in record["sources"])
        answered = {"proposal_id": record["proposal_id"], "review_id": record["review_id"],
                    "decision": "refused" if problems else decision, "problems": problems,
                    "reason": (reason or "")[:4000], "reviewer": reviewer,
                    "candidate_sha256": record["candidate_sha256"], "generation": self.binding.generation(),
                    "at": self.evidence.clock().isoformat()}
        self.evidence.principals.require_owner(owner_token)
        self.evidence.append(scope.partition(PROPOSALS), f"review:{record['proposal_id']}", answered)
        return answered

    def _answer_review(self, store: ReviewStore, record: dict[str, Any], answered: dict[str, Any]) -> None:
        """Mirror the kept decision on the REV- record (idempotent: a retry finishes it)."""
        review = store.load(record["review_id"])
        if review.status != "pending":
            return
        status = {"approve": "applied", "reject": "resolved", "refused": "refused"}[answered["decision"]]
        review.status = status
        review.updated_at = iso_utc()
        reviewer = Principal(answered["reviewer"], "person", True, "governed-owner-credential")
        review.decision = {"decision": answered["decision"], "reason": answered["reason"] or None,
                           "decided_by": reviewer.record(), "decided_at": answered["at"],
                           "decided_via": "governed-owner", "decided_channel": "owner-credential",
                           "decided_channel_detail": None, "decision_gate_enforced": True}
        if status == "refused":
            review.refusal = {"code": "proposal-source-changed", "detail": "; ".join(answered["problems"])}
        store.save(review)

    # ---- the privileged review surface ----

    def proposals(self, owner_token: str, scope: Scope) -> dict[str, Any]:
        """Owner only: every proposal of a scope with its status."""
        self.evidence.principals.require_owner(owner_token)
        partition = scope.partition(PROPOSALS)
        rows = [{**proposal_receipt(r, self._decision(scope, r["proposal_id"])),
                 "title": r["candidate"]["title"], "proposed_at": r["proposed_at"]}
                for _, r in self.evidence.records(partition, "prop-")]
        return {"scope": scope.to_dict(), "count": len(rows), "proposals": rows}

    def proposal(self, owner_token: str, scope: Scope, proposal_id: str) -> dict[str, Any]:
        """Owner only: one proposal in full (candidate, compiled form, source snapshots, decision)."""
        self.evidence.principals.require_owner(owner_token)
        record = self._record(scope, proposal_id)
        return {**record, "decision": self._decision(scope, proposal_id)}

    def reviewed(self, scope: Scope, proposal_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """A proposal and its kept decision (for the lifecycle; no credential check here)."""
        return self._record(scope, proposal_id), self._decision(scope, proposal_id)
