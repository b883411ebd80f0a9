"""RuleLifecycle: qualification, versioned activation receipts, shadow/suspend/revoke, rollback.

Everything is an encrypted, append-only record in the scope's ``#lifecycle`` partition:

- a diagnostic *attempt* is reserved (``attempt-…``) and charged against its proposal's
  budget (``attempt-count:<proposal>:<n>``, content-free) before the qualifier runs; its
  result (``attempt-result:…``) follows. A failed or crashed attempt stays charged, and a
  same-key retry answers the retained result, or ``unknown`` when none was kept, never a
  second run;
- a *qualification* (``qual-…``) keeps the verdict, the runtime versions and its expiry;
- each lifecycle change of a rule or profile is the next *generation*
  (``gen:<proposal>:<n>``), an activation receipt naming its state (active, shadow,
  suspended, revoked), its qualification and versions. Generation ids are sequential, so
  appending the next one is a compare-and-set across processes.

Active use requires all of: an approved review, sources unchanged in canonical memory, an
accepted unexpired qualification of this exact candidate, and the runtime versions it was
qualified under. They are checked at activation, at rollback and at every use, so no
historical receipt bypasses a revocation, an expiry or a changed source.

Restore quarantine: after a restore the owner's reconciliation appends a ``quarantined``
generation to every standing rule or profile of the scope (active, shadow, suspended, or
holding an accepted unexpired qualification). It names every qualification of the proposal
that existed then; none of them can put the rule into use again, neither through activation
nor through a rollback to an older generation. Only a fresh qualification, made after the
quarantine, can.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from revetly_core.governed.idempotency import check_key, record_id_for, replay_or_refuse, request_digest
from revetly_core.governed.memory_binding import SourceSnapshot
from revetly_core.governed.proposals import PROPOSALS, ProposalService, check_proposal_id
from revetly_core.governed.qualification import Qualifier, check_qualifier, kept_verdict, parse_answer
from revetly_core.governed.rule_predicates import CompiledRule, Decision, evaluate_rule
from revetly_core.governed.scope import Scope
from revetly_core.governed.vault import EvidenceService
from revetly_core.refusal import Refusal
from revetly_core.writes.crash import crash_point

LIFECYCLE = "lifecycle"
RULE_FORMAT = "1"
MAX_DIAGNOSTIC_ATTEMPTS = 8
"""Diagnostic attempts one proposal may be charged, failed and crashed ones included."""
MAX_CAS_ATTEMPTS = 8
CRASH_POINTS = ("qualification-reserved", "activation-checked", "activation-appended")
"""Fault-injection points: an attempt charged, its qualifier not yet run; an activation's checks
passed, its receipt not yet appended; the receipt appended, the answer not yet returned."""
State = Literal["active", "shadow", "suspended", "revoked", "quarantined"]
ENFORCED: tuple[State, ...] = ("active",)
EVALUATED: tuple[State, ...] = ("active", "shadow")


def generation_id(rule_id: str, number: int) -> str:
    """The record id of a rule's generation number (1-based)."""
    return f"gen:{rule_id}:{number:08d}"


def transition_allowed(current: State | None, target: State, *, checked: bool) -> bool:
    """Which state changes a lifecycle permits. Revoked is terminal. A checked activation (active
    or shadow, every check run) may start from any other state; an unchecked move only narrows
    use: shadow from active, suspended from active or shadow, quarantined and revoked from
    anything."""
    if current == "revoked":
        return False
    if target == "quarantined":
        return True
    if checked:
        return target in ("active", "shadow")
    if target == "shadow":
        return current == "active"
    if target == "suspended":
        return current in ("active", "shadow")
    return target == "revoked"


def append_generation(evidence: EvidenceService, scope: Scope, rule_id: str,
                      body: dict[str, Any]) -> dict[str, Any]:
    """Append a rule's next generation; another process's append in between is lifecycle-moved."""
    number = len(evidence.records(scope.partition(LIFECYCLE), f"gen:{rule_id}:")) + 1
    record = {"kind": "activation_receipt", "version": 1, "rule_id": rule_id, "generation": number,
              "previous_generation": number - 1 or None, "at": evidence.clock().isoformat(), **body}
    try:
        evidence.append(scope.partition(LIFECYCLE), generation_id(rule_id, number), record)
    except Refusal as refusal:
        if refusal.code == "record_exists":
            raise Refusal("lifecycle-moved", f"rule {rule_id} moved to generation {number} meanwhile",
                          "read its current generation and decide again") from None
        raise
    return record


def qualification_standing(qualification: dict[str, Any], now: datetime) -> bool:
    """A qualification can still put its rule into use: accepted and not yet expired."""
    return (qualification["verdict"] == "accepted"
            and now < datetime.fromisoformat(qualification["expires_at"]))


def quarantined_qualifications(history: list[dict[str, Any]]) -> set[str]:
    """Every qualification a restore quarantine of this history named: none of them counts again."""
    return {q for g in history if g["state"] == "quarantined"
            for q in g.get("quarantined_qualifications", [])}


def standing_policies(evidence: EvidenceService, scope: Scope) -> list[dict[str, Any]]:
    """The scope's rules and profiles that are in use or could be put into use without a new
    qualification: not revoked, and active, shadow, suspended, or holding an accepted unexpired
    qualification not named by a quarantine. Each with its state, those qualifications and its
    proposal's typed source links."""
    partition = scope.partition(LIFECYCLE)
    now = evidence.clock()
    histories: dict[str, list[dict[str, Any]]] = {}
    for _, record in evidence.records(partition, "gen:"):
        histories.setdefault(record["rule_id"], []).append(record)
    qualified: dict[str, list[str]] = {}
    for _, record in evidence.records(partition, "qual-"):
        if qualification_standing(record, now):
            qualified.setdefault(record["proposal_id"], []).append(record["qualification_id"])
    standing = []
    for rule_id in sorted(histories.keys() | qualified.keys()):
        history = histories.get(rule_id, [])
        state = history[-1]["state"] if history else None
        if state == "revoked":
            continue
        usable = [q for q in qualified.get(rule_id, []) if q not in quarantined_qualifications(history)]
        if state not in ("active", "shadow", "suspended") and not usable:
            continue
        proposal = evidence.get(scope.partition(PROPOSALS), rule_id) or {}
        standing.append({"rule_id": rule_id, "proposal_kind": proposal.get("proposal_kind"),
                         "state": state, "generation": history[-1]["generation"] if history else None,
                         "qualifications": usable, "sources": proposal.get("sources", [])})
    return standing


def quarantine_policies(evidence: EvidenceService, scope: Scope, restore_id: str) -> list[dict[str, Any]]:
    """Append a quarantined generation, for this restore event, to every standing rule and profile
    of the scope. A retry after a crash finds the ones this event already quarantined and lists
    them again without appending, so the answer is the same however often it runs."""
    partition = scope.partition(LIFECYCLE)
    for policy in standing_policies(evidence, scope):
        rule_id = policy["rule_id"]
        history = [r for _, r in evidence.records(partition, f"gen:{rule_id}:")]
        named = sorted({r["qualification_id"] for _, r in evidence.records(partition, "qual-")
                        if r["proposal_id"] == rule_id})
        previous = history[-1] if history else {}
        append_generation(evidence, scope, rule_id, {
            "state": "quarantined", "proposal_kind": policy["proposal_kind"],
            "qualification_id": previous.get("qualification_id"), "restore_id": restore_id,
            "quarantined_from": policy["state"], "quarantined_qualifications": named,
            "runtime_versions": previous.get("runtime_versions")})
    done = []
    for _, record in evidence.records(partition, "gen:"):
        if record["state"] == "quarantined" and record.get("restore_id") == restore_id:
            done.append({"rule_id": record["rule_id"], "generation": record["generation"],
                         "from": record["quarantined_from"],
                         "qualifications": record["quarantined_qualifications"]})
    return sorted(done, key=lambda d: (d["rule_id"], d["generation"]))


class RuleLifecycle:
    """The lifecycle of reviewed proposals in one vault, under one set of runtime versions."""

    def __init__(self, proposals: ProposalService, *, runtime_versions: dict[str, str] | None = None) -> None:
        self.proposals = proposals
        self.evidence = proposals.evidence
        self.runtime_versions = {"rule_format": RULE_FORMAT, **(runtime_versions or {})}

    # ---- qualification: diagnostic attempts reserved and charged before they run ----

    def qualify(self, owner_token: str, scope: Scope, proposal_id: str, qualifier: Qualifier, *,
                idempotency_key: str, expires_at: datetime) -> dict[str, Any]:
        """Owner only: qualify an approved proposal once per key; the attempt is charged first."""
        self.evidence.principals.require_owner(owner_token)
        check_qualifier(qualifier)
        check_key(idempotency_key)
        if expires_at.tzinfo is None or expires_at <= self.evidence.clock():
            raise Refusal("bad-expiry", "a qualification expires at a future, time-zoned moment",
                          "give a later expiry in UTC")
        record, decision = self.proposals.reviewed(scope, proposal_id)
        require_approved(decision)
        partition = scope.partition(LIFECYCLE)
        attempt_id = record_id_for("attempt", "owner", scope.key, "qualify", idempotency_key)
        digest = request_digest({"proposal_id": proposal_id, "qualifier": qualifier.name,
                                 "kind": qualifier.kind, "expires_at": expires_at.isoformat()})
        existing = self.evidence.get(partition, attempt_id)
        if existing is not None:
            replay_or_refuse(existing, digest)
            return self._attempt_answer(scope, existing)
        self._charge(scope, proposal_id, attempt_id)
        attempt = {"attempt_id": attempt_id, "kind": "diagnostic_attempt", "version": 1,
                   "proposal_id": proposal_id, "request_sha256": digest, "qualifier": qualifier.name,
                   "qualifier_kind": qualifier.kind, "reserved_at": self.evidence.clock().isoformat()}
        self.evidence.append(partition, attempt_id, attempt)
        crash_point("qualification-reserved")
        try:
            answer = parse_answer(qualifier.qualify(dict(record), dict(self.runtime_versions)))
        except Exception as exc:  # qualifier code is the owner's; its failure is charged, never replayed
            result = {"attempt_id": attempt_id, "status": "failed", "charged": True,
                      "error": type(exc).__name__, "at": self.evidence.clock().isoformat()}
            self.evidence.append(partition, f"attempt-result:{attempt_id}", result)
            return self._attempt_answer(scope, attempt)
        qualification_id = "qual-" + attempt_id[len("attempt-"):]
        qualification = {
            "qualification_id": qualification_id, "kind": "qualification", "version": 1,
            "proposal_id": proposal_id, "candidate_sha256": record["candidate_sha256"],
            "verdict": kept_verdict(qualifier.kind, answer.verdict), "answered": answer.verdict,
            "qualifier": qualifier.name, "qualifier_kind": qualifier.kind, "evidence": answer.evidence,
            "runtime_versions": dict(self.runtime_versions), "expires_at": expires_at.isoformat(),
            "at": self.evidence.clock().isoformat()}
        self.evidence.append(partition, qualification_id, qualification)
        self.evidence.append(partition, f"attempt-result:{attempt_id}",
                             {"attempt_id": attempt_id, "status": "succeeded", "charged": True,
                              "qualification_id": qualification_id, "at": qualification["at"]})
        return self._attempt_answer(scope, attempt)

    def _charge(self, scope: Scope, proposal_id: str, attempt_id: str) -> None:
        """Append the next content-free counter link of this proposal, or refuse past the budget."""
        partition = scope.partition(LIFECYCLE)
        prefix = f"attempt-count:{proposal_id}:"
        for _ in range(MAX_CAS_ATTEMPTS):
            used = len(self.evidence.records(partition, prefix))
            if used >= MAX_DIAGNOSTIC_ATTEMPTS:
                raise Refusal("diagnostic-budget-exhausted",
                              f"proposal {proposal_id} was charged {used} diagnostic attempts, "
                              "the most allowed",
                              "failed and crashed attempts stay charged; propose a new candidate")
            try:
                self.evidence.append(partition, f"{prefix}{used + 1:04d}",
                                     {"proposal_id": proposal_id, "attempt": used + 1})
            except Refusal as refusal:
                if refusal.code != "record_exists":
                    raise
                continue
            return
        raise Refusal("evidence-busy", "the attempt counter kept moving", "retry with the same key")

    def _attempt_answer(self, scope: Scope, attempt: dict[str, Any]) -> dict[str, Any]:
        partition = scope.partition(LIFECYCLE)
        result = self.evidence.get(partition, f"attempt-result:{attempt['attempt_id']}")
        used = len(self.evidence.records(partition, f"attempt-count:{attempt['proposal_id']}:"))
        base = {"attempt_id": attempt["attempt_id"], "proposal_id": attempt["proposal_id"],
                "charged": True, "attempts_charged": used, "attempts_allowed": MAX_DIAGNOSTIC_ATTEMPTS}
        if result is None:
            return {**base, "status": "unknown",
                    "detail": "the attempt was reserved and charged but left no result; it is not run again"}
        if result["status"] == "failed":
            return {**base, "status": "failed", "error": result["error"]}
        return {**base, "status": "succeeded",
                "qualification": self.evidence.get(partition, result["qualification_id"])}

    # ---- generations ----

    def history(self, scope: Scope, rule_id: str) -> list[dict[str, Any]]:
        """Every activation receipt of a rule or profile, oldest first."""
        prefix = f"gen:{check_proposal_id(rule_id)}:"
        return [r for _, r in self.evidence.records(scope.partition(LIFECYCLE), prefix)]

    def current(self, scope: Scope, rule_id: str) -> dict[str, Any] | None:
        """The latest generation of a rule or profile, or None before its first activation."""
        history = self.history(scope, rule_id)
        return history[-1] if history else None

    def _append_generation(self, scope: Scope, rule_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return append_generation(self.evidence, scope, check_proposal_id(rule_id), body)

    def use_problems(self, scope: Scope, rule_id: str, qualification_id: str | None) -> list[str]:
        """Every reason the rule may not be in use under this qualification now (empty: it may)."""
        problems: list[str] = []
        record, decision = self.proposals.reviewed(scope, rule_id)
        if decision is None or decision["decision"] != "approve":
            problems.append("the proposal is not approved")
        problems += self.proposals.binding.recheck(SourceSnapshot.from_dict(s) for s in record["sources"])
        qualification = self.evidence.get(scope.partition(LIFECYCLE), qualification_id) \
            if isinstance(qualification_id, str) and qualification_id.startswith("qual-") else None
        if qualification is None or qualification["proposal_id"] != rule_id:
            problems.append(f"no qualification {qualification_id} of this proposal")
            return problems
        if qualification["candidate_sha256"] != record["candidate_sha256"]:
            problems.append("the qualification is of another candidate")
        if qualification["verdict"] != "accepted":
            problems.append(f"the qualification is {qualification['verdict']}, not accepted")
        if self.evidence.clock() >= datetime.fromisoformat(qualification["expires_at"]):
            problems.append("the qualification has expired")
        if qualification["runtime_versions"] != self.runtime_versions:
            problems.append("the runtime versions differ from those it was qualified under")
        if qualification_id in quarantined_qualifications(self.history(scope, rule_id)):
            problems.append("the qualification predates a restore quarantine; qualify the rule afresh")
        return problems

    def activate(self, owner_token: str, scope: Scope, rule_id: str, qualification_id: str, *,
                 mode: Literal["active", "shadow"] = "active") -> dict[str, Any]:
        """Owner only: put a reviewed, qualified candidate into use (or shadow) as a new generation."""
        self.evidence.principals.require_owner(owner_token)
        current = self.current(scope, rule_id)
        state = None if current is None else current["state"]
        if current is not None and state == mode and current["qualification_id"] == qualification_id:
            return {**current, "replayed": True}
        self._require_transition(rule_id, state, mode, checked=True)
        self._require_usable(scope, rule_id, qualification_id)
        crash_point("activation-checked")
        record = self._append_generation(scope, rule_id, self._body(scope, rule_id, mode, qualification_id))
        crash_point("activation-appended")
        return record

    def _body(self, scope: Scope, rule_id: str, state: State, qualification_id: str | None,
              **extra: Any) -> dict[str, Any]:
        record, _ = self.proposals.reviewed(scope, rule_id)
        return {"state": state, "proposal_kind": record["proposal_kind"],
                "candidate_sha256": record["candidate_sha256"], "compiled": record["compiled"],
                "settings": record["candidate"].get("settings"), "sources": record["sources"],
                "qualification_id": qualification_id, "runtime_versions": dict(self.runtime_versions),
                **extra}

    def _require_transition(self, rule_id: str, state: State | None, target: State, *,
                            checked: bool) -> None:
        if not transition_allowed(state, target, checked=checked):
            code = "rule-revoked" if state == "revoked" else "bad-transition"
            raise Refusal(code, f"rule {rule_id} is {state or 'not activated'}; it cannot become {target}",
                          "a revoked rule stays revoked: propose it again" if state == "revoked"
                          else "activate it first")

    def _require_usable(self, scope: Scope, rule_id: str, qualification_id: str) -> None:
        problems = self.use_problems(scope, rule_id, qualification_id)
        if problems:
            raise Refusal("activation-checks-failed", "; ".join(problems),
                          "review, requalify or re-propose so every check holds",
                          {"rule_id": rule_id, "problems": problems})

    def _move(self, owner_token: str, scope: Scope, rule_id: str, target: State,
              reason: str) -> dict[str, Any]:
        self.evidence.principals.require_owner(owner_token)
        current = self.current(scope, rule_id)
        state = None if current is None else current["state"]
        if current is not None and state == target:
            return {**current, "replayed": True}
        self._require_transition(rule_id, state, target, checked=False)
        qualification_id = None if current is None else current["qualification_id"]
        return self._append_generation(scope, rule_id, self._body(scope, rule_id, target, qualification_id,
                                                                  reason=reason[:2000]))

    def shadow(self, owner_token: str, scope: Scope, rule_id: str, *, reason: str = "") -> dict[str, Any]:
        """Owner only: keep evaluating an active rule without enforcing it."""
        return self._move(owner_token, scope, rule_id, "shadow", reason)

    def suspend(self, owner_token: str, scope: Scope, rule_id: str, *, reason: str = "") -> dict[str, Any]:
        """Owner only: stop using a rule (activation or rollback can bring it back, with the checks)."""
        return self._move(owner_token, scope, rule_id, "suspended", reason)

    def revoke(self, owner_token: str, scope: Scope, rule_id: str, *, reason: str = "") -> dict[str, Any]:
        """Owner only: end a rule for good; no later activation or rollback can revive it."""
        return self._move(owner_token, scope, rule_id, "revoked", reason)

    def rollback(self, owner_token: str, scope: Scope, rule_id: str, to_generation: int) -> dict[str, Any]:
        """Owner only: a new generation copying an exact earlier *active* one, when its checks
        still hold (approval, sources, its qualification and versions)."""
        self.evidence.principals.require_owner(owner_token)
        history = self.history(scope, rule_id)
        if not isinstance(to_generation, int) or not 1 <= to_generation <= len(history):
            raise Refusal("no-generation", f"rule {rule_id} has no generation {to_generation}",
                          "list its generations with `revetly rag owner rule-history`")
        target = history[to_generation - 1]
        if target["state"] != "active":
            raise Refusal("no-generation", f"generation {to_generation} of {rule_id} was {target['state']}, "
                          "not active", "roll back only to a generation that was active")
        self._require_transition(rule_id, history[-1]["state"], "active", checked=True)
        self._require_usable(scope, rule_id, target["qualification_id"])
        return self._append_generation(scope, rule_id, self._body(
            scope, rule_id, "active", target["qualification_id"], rolled_back_to=to_generation))

    def quarantine(self, owner_token: str, scope: Scope, restore_id: str) -> list[dict[str, Any]]:
        """Owner only: quarantine every standing rule and profile of the scope for a restore event
        (what reconcile_after_restore runs); until a fresh qualification, none is used again."""
        self.evidence.principals.require_owner(owner_token)
        return quarantine_policies(self.evidence, scope, restore_id)

    # ---- use ----

    def in_use(self, scope: Scope) -> list[dict[str, Any]]:
        """The current generation of every rule and profile that is active or shadow (their checks
        are judged again wherever they are used)."""
        latest: dict[str, dict[str, Any]] = {}
        for _, record in self.evidence.records(scope.partition(LIFECYCLE), "gen:"):
            latest[record["rule_id"]] = record
        return [r for r in latest.values() if r["state"] in EVALUATED]

    def evaluate(self, scope: Scope, tool: str, arguments: dict[str, Any], *, approved: bool = False,
                 native_veto: bool = False) -> dict[str, Any]:
        """The active rules' decision for one call; shadow rules are evaluated and reported only.
        A rule whose checks no longer hold is withheld, never applied; a native veto always wins."""
        enforced: list[Decision] = []
        rules, withheld = [], []
        for record in self.in_use(scope):
            if record["proposal_kind"] != "rule":
                continue
            problems = self.use_problems(scope, record["rule_id"], record["qualification_id"])
            if problems:
                withheld.append({"rule_id": record["rule_id"], "generation": record["generation"],
                                 "problems": problems})
                continue
            decision = evaluate_rule(CompiledRule.from_dict(record["compiled"]), tool, arguments,
                                     approved=approved, native_veto=native_veto)
            rules.append({"rule_id": record["rule_id"], "generation": record["generation"],
                          "state": record["state"], "decision": decision})
            if record["state"] in ENFORCED:
                enforced.append(decision)
        final: Decision = "deny" if native_veto or "deny" in enforced else (
            "needs_approval" if "needs_approval" in enforced else "allow")
        return {"tool": tool, "decision": final, "native_veto": native_veto, "rules": rules,
                "withheld": withheld}


def require_approved(decision: dict[str, Any] | None) -> None:
    """Qualification and activation need a proposal the owner approved."""
    if decision is None or decision["decision"] != "approve":
        state = "pending review" if decision is None else decision["decision"]
        raise Refusal("not-reviewed", f"the proposal is {state}, not approved",
                      "the owner reviews it first (`revetly rag owner review`)")
