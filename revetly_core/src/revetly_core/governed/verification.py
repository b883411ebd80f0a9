"""VerificationService: independent checks of guarded executions, and the owner's reconcile.

Verification callbacks are owner code registered for one scope and tool, each bound to a
separately authenticated verifier principal: only that principal's session may run it, and
never the execution's own actor. ``state_only`` (the default) retains exact checks of
destination state, which cannot prove the agent made the call. ``effect_receipt`` additionally
reads the backend's operation journal: the entry must bind the run, turn, this invocation,
its canonical argument digest and a unique backend effect reference. Only such a verification,
unchanged and undisputed, together with a matching backend-terminal journal receipt, lets the
owner clear an uncertain execution's hold. A failed task stays failed; it only stops holding.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from revetly_core.governed.dispatcher import GuardedDispatcher, check_execution_id
from revetly_core.governed.execution_state import EXECUTIONS
from revetly_core.governed.feedback import OUTCOMES
from revetly_core.governed.guarded_tools import canonical_json, check_tool_name
from revetly_core.governed.idempotency import check_key, record_id_for, replay_or_refuse, request_digest
from revetly_core.governed.principals import Session
from revetly_core.governed.scope import Scope, check_name
from revetly_core.governed.vault import CONTROL
from revetly_core.refusal import Refusal

VERIFICATIONS = "verifications"
Binding = Literal["state_only", "effect_receipt"]
BINDINGS = ("state_only", "effect_receipt")
TERMINAL = ("succeeded", "failed", "not_dispatched")
"""Journal statuses that end an operation; 'unknown' does not."""


class Check(BaseModel):
    """One exact check a verifier performed: its method, what it observed and what was expected."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=128)
    method: str = Field(min_length=1, max_length=256)
    observed: Any
    expected: Any


class JournalEntry(BaseModel):
    """A backend operation-journal entry for one invocation (the effect receipt)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str = Field(min_length=1, max_length=128)
    turn_id: str = Field(min_length=1, max_length=128)
    invocation_id: str = Field(min_length=1, max_length=128)
    arguments_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    effect_ref: str = Field(min_length=1, max_length=256)
    status: Literal["succeeded", "failed", "not_dispatched", "unknown"]


class Readback(BaseModel):
    """What a verification callback returns: every check, and for effect_receipt the journal entry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    checks: list[Check] = Field(min_length=1, max_length=64)
    journal: JournalEntry | None = None


def parse_readback(data: object) -> Readback:
    """A callback's readback, validated; anything else is a refusal, never a partial verification."""
    try:
        return Readback.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(readback)"
        raise Refusal("bad_readback", f"{where}: {first['msg']}",
                      "return {checks: [{name, method, observed, expected}], journal?}") from None


def parse_journal_receipt(data: object) -> JournalEntry:
    """A backend journal receipt the owner supplies to reconcile, validated."""
    try:
        return JournalEntry.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(receipt)"
        raise Refusal("bad_journal_receipt", f"{where}: {first['msg']}",
                      "send {run_id, turn_id, invocation_id, arguments_sha256, effect_ref, status}") from None


def check_passes(check: Check) -> bool:
    """A check passes when what was observed equals what was expected, exactly (typed JSON)."""
    return canonical_json(check.observed) == canonical_json(check.expected)


def journal_binds(entry: JournalEntry, admission: dict[str, Any]) -> list[str]:
    """The ways a journal entry fails to bind this exact invocation (empty: it binds)."""
    problems = []
    if entry.invocation_id != admission["execution_id"]:
        problems.append("invocation_id names another invocation")
    if entry.arguments_sha256 != admission["arguments_sha256"]:
        problems.append("arguments_sha256 differs from the admitted arguments")
    return problems


def verdict(binding: Binding, checks_passed: bool, entry: JournalEntry | None) -> str:
    """What a verification establishes. state_only never counts an action; an effect receipt
    counts success only when the operation succeeded and every check passed."""
    if binding == "state_only" or entry is None:
        return "state_only"
    if entry.status == "unknown":
        return "effect_unknown"
    if entry.status != "succeeded":
        return "effect_not_succeeded"
    return "verified_success" if checks_passed else "task_failed"


def effect_ref_id(effect_ref: str) -> str:
    """The record id that reserves a backend effect reference for one invocation."""
    return "effect-ref:" + hashlib.sha256(effect_ref.encode()).hexdigest()[:32]


VerificationCallback = Callable[[dict[str, Any]], object]
"""Owner code: given the retained admission, read destination state (and the journal) and return
a readback. It runs with the verifier's authority, never the model's."""


@dataclass(frozen=True)
class _Verifier:
    registration: dict[str, Any]
    callback: VerificationCallback


_VERIFIER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_verifier_id(verifier_id: str) -> str:
    """A verifier id is 1-64 characters from A-Z a-z 0-9 . _ - starting with a letter or digit."""
    if not isinstance(verifier_id, str) or not _VERIFIER_ID.match(verifier_id):
        raise Refusal("bad_verifier", f"{verifier_id!r} is not a verifier id",
                      "use 1-64 characters from A-Z a-z 0-9 . _ -")
    return verifier_id


def _registration_prefix(scope: Scope, verifier_id: str) -> str:
    return f"verifier:{scope.key}:{verifier_id}:"


class VerificationService:
    """Owner-registered verification of guarded executions, run by separately authenticated verifiers."""

    def __init__(self, dispatcher: GuardedDispatcher) -> None:
        self.dispatcher = dispatcher
        self.feedback = dispatcher.feedback
        self.evidence = dispatcher.evidence
        self._callbacks: dict[tuple[str, str], _Verifier] = {}
        self._lock = threading.Lock()

    # ---- owner ----

    def register_verifier(self, owner_token: str, scope: Scope, verifier_id: str, principal_id: str,
                          tool: str, callback: VerificationCallback, *,
                          binding: Binding = "state_only", version: str = "1") -> dict[str, Any]:
        """Owner only: a verification callback for one scope and tool, runnable only by principal_id.

        Changing the principal, tool, binding or version is a new registration; verifications
        retained under an earlier one no longer reconcile anything."""
        self.evidence.principals.require_owner(owner_token)
        check_verifier_id(verifier_id)
        check_tool_name(tool)
        if binding not in BINDINGS:
            raise Refusal("bad_binding", f"{binding!r} is not a verification binding",
                          "use binding='state_only' or binding='effect_receipt'")
        if not callable(callback):
            raise Refusal("bad_verifier", "a verification callback is callable", "pass a function")
        if self.evidence.get(CONTROL, f"principal:{principal_id}") is None:
            raise Refusal("no_principal", f"no application principal {principal_id}",
                          "issue the verifier its own credential first")
        body = {"verifier_id": verifier_id, "scope": scope.to_dict(), "principal_id": principal_id,
                "tool": tool, "binding": binding, "version": version}
        registration = {**body, "registration_sha256": request_digest(body)}
        with self._lock:
            current = self._registration(scope, verifier_id)
            if current is None or current["registration_sha256"] != registration["registration_sha256"]:
                seq = len(self.evidence.records(CONTROL, _registration_prefix(scope, verifier_id)))
                self.evidence.append(CONTROL, f"{_registration_prefix(scope, verifier_id)}{seq:08d}",
                                     {**registration, "at": self.evidence.clock().isoformat()})
            self._callbacks[(scope.key, verifier_id)] = _Verifier(registration, callback)
        return {"registered": registration}

    # ---- verifier ----

    def verify(self, session: Session, verifier_id: str, execution_id: str, *, idempotency_key: str,
               outcome_id: str | None = None) -> dict[str, Any]:
        """Run the registered callback for one execution as its verifier, and retain the readback.

        With outcome_id, the verification is also bound to that retained outcome of the scope:
        its digest is kept, and an effect receipt must name the outcome's run."""
        with self.feedback.metrics.measure(session.scope.key, "verify"):
            self.feedback.authorize(session, "verify")
            check_key(idempotency_key)
            check_execution_id(execution_id)
            registration = self._verifier_for(session, verifier_id)
            state = self.dispatcher.state(session.scope, execution_id)
            admission = state["admission"]
            if admission["tool"] != registration.registration["tool"]:
                raise Refusal("verifier_wrong_tool", f"verifier {verifier_id} checks "
                              f"{registration.registration['tool']}, not {admission['tool']}",
                              "use the verifier registered for this tool")
            if admission["actor"] == session.principal_id:
                raise Refusal("verifier_not_independent", "the principal that executed an action cannot "
                              "verify it", "verify with the separately authenticated verifier identity")
            partition = session.scope.partition(VERIFICATIONS)
            verification_id = record_id_for("ver", session.principal_id, session.scope.key, "verify",
                                            idempotency_key)
            outcome = self._outcome(session.scope, outcome_id)
            digest = request_digest({"principal_id": session.principal_id, "verifier_id": verifier_id,
                                     "execution_id": execution_id, "outcome_id": outcome_id})
            existing = self.evidence.get(partition, verification_id)
            if existing is not None:
                return replay_or_refuse(existing, digest)
            try:
                raw = registration.callback(dict(admission))
            except Exception as exc:
                raise Refusal("verifier_failed",
                              f"verifier {verifier_id} raised {type(exc).__name__}; nothing was retained",
                              "fix the verification callback, then verify again") from None
            readback = parse_readback(raw)
            record = self._judge(registration.registration, admission, readback)
            if outcome is not None:
                journal = record["journal"]
                if journal is not None and journal["run_id"] != outcome["report"]["run_id"]:
                    raise Refusal("journal_unbound", "the journal entry's run is not the outcome's run",
                                  "verify against the outcome of the run that made this invocation")
                record["outcome"] = {"outcome_id": outcome_id, "outcome_sha256": request_digest(outcome)}
            else:
                record["outcome"] = None
            self.feedback.authorize(session, "verify")
            if self._registration(session.scope, verifier_id) != registration.registration:
                raise Refusal("verifier_changed",
                              f"verifier {verifier_id} was re-registered during the check", "verify again")
            record = {"verification_id": verification_id, "kind": "verification", "version": 1,
                      "request_sha256": digest, "verified_by": session.principal_id,
                      "verified_at": self.evidence.clock().isoformat(), **record}
            if record["journal"] is not None:
                self._reserve_effect_ref(session.scope, record["journal"]["effect_ref"], execution_id)
            self.evidence.append(partition, verification_id, record)
            return record

    # ---- owner reconcile ----

    def reconcile(self, owner_token: str, scope: Scope, execution_id: str, verification_id: str,
                  journal_receipt: dict[str, Any]) -> dict[str, Any]:
        """Owner only: clear an uncertain execution's hold, from a retained independent effect-bound
        verification of it and a matching backend-terminal journal receipt. Never replays anything."""
        self.evidence.principals.require_owner(owner_token)
        check_execution_id(execution_id)
        partition = scope.partition(EXECUTIONS)
        done = self.evidence.get(partition, f"reconcile:{execution_id}")
        if done is not None:
            return done
        state = self.dispatcher.state(scope, execution_id)
        if not state["hold"]:
            raise Refusal("nothing_to_reconcile", f"execution {execution_id} is {state['status']} and "
                          "holds nothing", "only an execution whose hold stands is reconciled")
        if self.dispatcher.running(execution_id):
            raise Refusal("handler_still_running", f"the handler of {execution_id} is still running here",
                          "wait for it to finish, then reconcile")
        verification = self._usable_verification(scope, execution_id, verification_id)
        receipt = parse_journal_receipt(journal_receipt)
        if receipt.status not in TERMINAL:
            raise Refusal("journal_not_terminal", f"the backend journal says {receipt.status!r}",
                          "reconcile only once the backend reports a terminal operation status")
        if receipt.model_dump() != verification["journal"]:
            raise Refusal("journal_mismatch", "the journal receipt differs from the one the verifier read",
                          "verify again against the backend's current journal")
        record = {"execution_id": execution_id, "kind": "reconciliation", "version": 1,
                  "verification_id": verification_id, "terminal_status": receipt.status,
                  "task_result": "succeeded" if verification["verdict"] == "verified_success"
                  else "not_succeeded",
                  "journal": receipt.model_dump(), "reconciled_at": self.evidence.clock().isoformat()}
        try:
            self.evidence.append(partition, f"reconcile:{execution_id}", record)
        except Refusal as refusal:
            if refusal.code != "record_exists":
                raise
            return self.evidence.get(partition, f"reconcile:{execution_id}") or record
        return record

    # ---- internals ----

    def _outcome(self, scope: Scope, outcome_id: str | None) -> dict[str, Any] | None:
        if outcome_id is None:
            return None
        check_name(outcome_id, "outcome_id")
        outcome = self.evidence.get(scope.partition(OUTCOMES), outcome_id)
        if outcome is None:
            raise Refusal("no_outcome", f"no outcome {outcome_id} in this scope",
                          "bind the verification to an outcome retained in this scope")
        return outcome

    def _registration(self, scope: Scope, verifier_id: str) -> dict[str, Any] | None:
        records = self.evidence.records(CONTROL, _registration_prefix(scope, verifier_id))
        if not records:
            return None
        return {k: v for k, v in records[-1][1].items() if k != "at"}

    def _verifier_for(self, session: Session, verifier_id: str) -> _Verifier:
        """The attached verifier, when this session is its registered identity."""
        check_verifier_id(verifier_id)
        current = self._registration(session.scope, verifier_id)
        attached = self._callbacks.get((session.scope.key, verifier_id))
        if current is None:
            raise Refusal("unknown_verifier", f"no verifier {verifier_id} in {session.scope.key}",
                          "the owner registers verifiers")
        if current["principal_id"] != session.principal_id:
            raise Refusal("verifier_identity_mismatch", f"verifier {verifier_id} is registered to another "
                          "identity", "authenticate with the verifier's own credential")
        if attached is None or attached.registration != current:
            raise Refusal("verifier_unavailable", f"verifier {verifier_id} has no callback attached here",
                          "the owner registers the callback in this process")
        return attached

    def _judge(self, registration: dict[str, Any], admission: dict[str, Any],
               readback: Readback) -> dict[str, Any]:
        binding: Binding = registration["binding"]
        if binding == "effect_receipt":
            if readback.journal is None:
                raise Refusal("journal_required",
                              "an effect_receipt verifier must read the operation journal",
                              "return the journal entry of this invocation")
            problems = journal_binds(readback.journal, admission)
            if problems:
                raise Refusal("journal_unbound", "; ".join(problems),
                              "read the journal entry of exactly this invocation")
        proofs = [{**c.model_dump(), "passed": check_passes(c)} for c in readback.checks]
        passed = all(p["passed"] for p in proofs)
        journal = readback.journal if binding == "effect_receipt" else None
        return {"execution_id": admission["execution_id"], "verifier_id": registration["verifier_id"],
                "registration_sha256": registration["registration_sha256"], "binding": binding,
                "checks": proofs, "checks_passed": passed,
                "journal": journal.model_dump() if journal is not None else None,
                "verdict": verdict(binding, passed, journal)}

    def _reserve_effect_ref(self, scope: Scope, effect_ref: str, execution_id: str) -> None:
        """One backend effect reference proves at most one invocation."""
        partition = scope.partition(VERIFICATIONS)
        record_id = effect_ref_id(effect_ref)
        owner = self.evidence.get(partition, record_id)
        if owner is None:
            try:
                self.evidence.append(partition, record_id, {"execution_id": execution_id})
                return
            except Refusal as refusal:
                if refusal.code != "record_exists":
                    raise
                owner = self.evidence.get(partition, record_id) or {}
        if owner.get("execution_id") != execution_id:
            raise Refusal("effect_reference_reused", "this backend effect reference already proves "
                          "another invocation", "a journal entry binds exactly one invocation")

    def _usable_verification(self, scope: Scope, execution_id: str, verification_id: str) -> dict[str, Any]:
        """The named verification, when it is effect-bound, unchanged and undisputed."""
        verifications = [r for _, r in self.evidence.records(scope.partition(VERIFICATIONS), "ver-")
                         if r["execution_id"] == execution_id]
        chosen = next((v for v in verifications if v["verification_id"] == verification_id), None)
        if chosen is None:
            raise Refusal("no_verification", f"no retained verification {verification_id} of {execution_id}",
                          "a verifier runs verify first")
        if chosen["binding"] != "effect_receipt":
            raise Refusal("verification_not_effect_bound", "a state-only verification cannot clear a hold: "
                          "destination state does not prove what the call did",
                          "register an effect_receipt verifier reading the operation journal")
        current = self._registration(scope, chosen["verifier_id"])
        if current is None or current["registration_sha256"] != chosen["registration_sha256"]:
            raise Refusal("verifier_changed", f"verifier {chosen['verifier_id']} changed since it verified",
                          "verify again with the current verifier")
        bound = [v for v in verifications if v["binding"] == "effect_receipt"]
        if len({canonical_json(v["journal"]) for v in bound}) > 1:
            raise Refusal("verification_disputed", f"the verifications of {execution_id} disagree",
                          "conflicts stay disputed; resolve the backend's journal first")
        return chosen
