"""GuardedDispatcher: owner-registered proxy tools whose execution never blindly replays an effect.

Before a handler runs, its admission and a hold on the scope/tool are persisted in the evidence
vault (SQLite, encrypted, checkpointed). A handler's normal return is its acknowledgement and
releases the hold; a timeout, an exception or a lost acknowledgement leaves the execution
uncertain and the hold standing: new keys for that tool in that scope are refused, across
restarts, until the owner reconciles it from independent evidence (VerificationService). A
same-key retry returns the original admission and never dispatches again.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, NoReturn

from revetly_core.governed.execution_state import (
    EXECUTIONS,
    Status,
    execution_status,
    hold_link_id,
    holds,
)
from revetly_core.governed.feedback import FeedbackService
from revetly_core.governed.guarded_tools import (
    ExecutionContext,
    GuardedHandler,
    GuardedTool,
    arguments_digest,
    check_tool_name,
    validate_arguments,
)
from revetly_core.governed.idempotency import check_key, record_id_for, replay_or_refuse, request_digest
from revetly_core.governed.principals import Session
from revetly_core.governed.scope import Scope
from revetly_core.governed.vault import CONTROL
from revetly_core.refusal import Refusal
from revetly_core.writes.crash import crash_point

DEFAULT_WORKERS = 4
DEFAULT_TIMEOUT = 30.0
MAX_CAS_ATTEMPTS = 8
CRASH_POINTS = ("guarded-admitting", "guarded-admitted", "guarded-held", "guarded-returned")
"""Fault-injection points (REVETLY_CRASH_AT), in order: inside the one batched append of
admission and hold, before it commits (nothing retained); admission and hold persisted together
(ADR 0035), the grant not yet re-checked; the grant re-checked, nothing dispatched; handler
returned, acknowledgement not yet persisted."""


def check_execution_id(execution_id: str) -> str:
    """An execution id is what guarded_execute returned: exec- and 32 hex digits."""
    if (not isinstance(execution_id, str) or len(execution_id) != 37 or not execution_id.startswith("exec-")
            or any(c not in "0123456789abcdef" for c in execution_id[5:])):
        raise Refusal("bad_execution_id", "not an execution id",
                      "use the execution_id a guarded_execute returned")
    return execution_id


def _registration_prefix(scope: Scope, name: str) -> str:
    return f"guarded-tool:{scope.key}:{name}:"


@dataclass(frozen=True)
class _Attached:
    tool: GuardedTool
    handler: GuardedHandler
    with_context: bool

    def serves(self, record: dict[str, Any]) -> bool:
        """Whether this handler was attached for exactly the registration record given."""
        return bool(record["tool"] == self.tool.to_dict() and record["with_context"] == self.with_context)


class GuardedDispatcher:
    """Application-owned dispatch of owner-registered proxy tools, for sessions holding execute."""

    def __init__(self, feedback: FeedbackService, *, max_workers: int = DEFAULT_WORKERS,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.feedback = feedback
        self.evidence = feedback.evidence
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="revetly-guarded")
        self._slots = threading.BoundedSemaphore(max_workers)
        self._attached: dict[tuple[str, str], _Attached] = {}
        self._running: set[str] = set()
        self._heads: dict[tuple[str, str], int] = {}
        self._links: dict[tuple[str, str, int], str] = {}
        self._released: set[str] = set()
        self._lock = threading.Lock()

    # ---- owner configuration ----

    def register(self, owner_token: str, scope: Scope, tool: GuardedTool, handler: GuardedHandler, *,
                 with_context: bool = False) -> dict[str, Any]:
        """Owner only: register (or re-attach in this process) a proxy tool and its handler for a scope.

        A changed schema, version, description or context mode is a new registration record;
        registering the same tool again only attaches the handler here."""
        self.evidence.principals.require_owner(owner_token)
        if not isinstance(handler, GuardedHandler):
            raise Refusal("bad_handler", "a guarded handler has an invoke(arguments) method",
                          "implement invoke(arguments) or invoke(arguments, context=...)")
        record = {"tool": tool.to_dict(), "scope": scope.to_dict(), "with_context": with_context,
                  "active": True}
        with self._lock:
            current = self._registration_record(scope, tool.name)
            if current is None or {k: current[k] for k in record} != record:
                seq = len(self.evidence.records(CONTROL, _registration_prefix(scope, tool.name)))
                self.evidence.append(CONTROL, f"{_registration_prefix(scope, tool.name)}{seq:08d}",
                                     {**record, "at": self.evidence.clock().isoformat()})
            self._attached[(scope.key, tool.name)] = _Attached(tool, handler, with_context)
        return {"registered": tool.to_dict(), "scope": scope.to_dict(), "with_context": with_context}

    def withdraw(self, owner_token: str, scope: Scope, name: str) -> dict[str, Any]:
        """Owner only: withdraw a tool from a scope. Holds of its executions are unaffected."""
        self.evidence.principals.require_owner(owner_token)
        with self._lock:
            current = self._registration_record(scope, check_tool_name(name))
            if current is None or not current["active"]:
                raise Refusal("unknown_guarded_tool", f"no guarded tool {name} in {scope.key}",
                              "list tools with guarded_tools")
            seq = len(self.evidence.records(CONTROL, _registration_prefix(scope, name)))
            self.evidence.append(CONTROL, f"{_registration_prefix(scope, name)}{seq:08d}",
                                 {**current, "active": False, "at": self.evidence.clock().isoformat()})
            self._attached.pop((scope.key, name), None)
        return {"withdrawn": name, "scope": scope.to_dict()}

    # ---- model-facing operations ----

    def tools(self, session: Session) -> dict[str, Any]:
        """The exact schemas and versions of the proxy tools registered for this scope (execute)."""
        with self.feedback.metrics.measure(session.scope.key, "guarded_tools"):
            self.feedback.authorize(session, "execute")
            listed = []
            for record in self._active_registrations(session.scope):
                tool = GuardedTool.from_dict(record["tool"])
                attached = self._attached.get((session.scope.key, tool.name))
                listed.append({**tool.to_dict(), "with_context": record["with_context"],
                               "available": attached is not None and attached.serves(record)})
            return {"scope": session.scope.to_dict(), "tools": listed,
                    "note": "an acknowledgement is the handler's response, not verification of the task"}

    def execute(self, session: Session, tool_name: str, arguments: dict[str, Any], *,
                idempotency_key: str) -> dict[str, Any]:
        """Admit, hold, dispatch once, record the outcome. A same-key retry returns the original
        admission without dispatching; a held scope/tool refuses new keys."""
        with self.feedback.metrics.measure(session.scope.key, "guarded_execute"):
            self.feedback.authorize(session, "execute")
            check_key(idempotency_key)
            check_tool_name(tool_name)
            partition = session.scope.partition(EXECUTIONS)
            execution_id = record_id_for("exec", session.principal_id, session.scope.key, "guarded_execute",
                                         idempotency_key)
            digest = request_digest({"principal_id": session.principal_id, "tool": tool_name,
                                     "arguments": arguments})
            existing = self.evidence.get(partition, execution_id)
            if existing is not None:
                return self._replay(session.scope, replay_or_refuse(existing, digest))
            attached = self._serving(session.scope, tool_name)
            validate_arguments(attached.tool, arguments)
            head = self._refuse_if_held(session.scope, tool_name)
            if not self._slots.acquire(timeout=0):
                raise Refusal("dispatcher_busy", "every guarded worker is busy; nothing was admitted",
                              "retry later with the same key")
            admitted_here = False
            try:
                admission = self._admit_and_hold(session, attached.tool, arguments, idempotency_key,
                                                 execution_id, digest, head)
                if "replayed" in admission:
                    self._slots.release()
                    return admission
                admitted_here = True
                crash_point("guarded-admitted")
                self.feedback.authorize(session, "execute")
            except BaseException:
                self._slots.release()
                if admitted_here:
                    self._record_not_dispatched(session.scope, execution_id)
                raise
            crash_point("guarded-held")
            return self._dispatch(session, attached, admission)

    def inspect(self, session: Session, execution_id: str) -> dict[str, Any]:
        """The retained admission, outcome and hold of one execution of this scope (read).
        Inspection is not independent verification."""
        with self.feedback.metrics.measure(session.scope.key, "guarded_inspect"):
            self.feedback.authorize(session, "read")
            return self.state(session.scope, check_execution_id(execution_id))

    # ---- state (also used by VerificationService) ----

    def state(self, scope: Scope, execution_id: str, *, held: bool | None = None) -> dict[str, Any]:
        """Everything retained about an execution and the status it implies (held: whether a hold
        link names it, when the caller already knows)."""
        partition = scope.partition(EXECUTIONS)
        admission = self.evidence.get(partition, execution_id)
        if admission is None:
            raise Refusal("no_execution", f"no execution {execution_id} in this scope",
                          "use an execution_id guarded_execute returned in this scope")
        if held is None:
            held = self._hold_link_of(scope, admission["tool"], execution_id) is not None
        outcome = self.evidence.get(partition, f"outcome:{execution_id}")
        reconciled = self.evidence.get(partition, f"reconcile:{execution_id}")
        status = execution_status(held=held, outcome=outcome, reconciled=reconciled,
                                  running=execution_id in self._running)
        return {"execution_id": execution_id, "status": status, "hold": held and holds(status),
                "admission": admission, "outcome": outcome, "reconciliation": reconciled,
                "verification": "none: an acknowledgement or an inspection does not verify the task"}

    def running(self, execution_id: str) -> bool:
        """Whether this process is still running the execution's handler (it may finish late)."""
        return execution_id in self._running

    # ---- internals ----

    def _registration_record(self, scope: Scope, name: str) -> dict[str, Any] | None:
        records = self.evidence.records(CONTROL, _registration_prefix(scope, name))
        return records[-1][1] if records else None

    def _active_registrations(self, scope: Scope) -> list[dict[str, Any]]:
        latest: dict[str, dict[str, Any]] = {}
        for _, record in self.evidence.records(CONTROL, f"guarded-tool:{scope.key}:"):
            latest[record["tool"]["name"]] = record
        return [r for name, r in sorted(latest.items()) if r["active"]]

    def _serving(self, scope: Scope, name: str) -> _Attached:
        record = self._registration_record(scope, name)
        if record is None or not record["active"]:
            raise Refusal("unknown_guarded_tool", f"no guarded tool {name} in {scope.key}",
                          "list tools with guarded_tools")
        attached = self._attached.get((scope.key, name))
        if attached is None or not attached.serves(record):
            raise Refusal("guarded_tool_unavailable", f"guarded tool {name} has no handler attached here",
                          "the application registers its handler in this process; nothing was admitted")
        return attached

    def _head(self, scope: Scope, tool: str) -> int:
        """The number of the tool's last hold link in the scope (0: none), probing past the cache."""
        partition = scope.partition(EXECUTIONS)
        n = self._heads.get((scope.key, tool), 0)
        while self.evidence.get(partition, hold_link_id(tool, n + 1)) is not None:
            n += 1
        self._heads[(scope.key, tool)] = n
        return n

    def _holder(self, scope: Scope, tool: str, n: int) -> dict[str, Any] | None:
        """The execution that link n names and its status, when it still holds the tool."""
        if n == 0:
            return None
        partition = scope.partition(EXECUTIONS)
        execution_id = self._links.get((scope.key, tool, n))
        if execution_id is None:
            link = self.evidence.get(partition, hold_link_id(tool, n))
            assert link is not None
            execution_id = self._links[(scope.key, tool, n)] = link["execution_id"]
        if execution_id in self._released:  # records are append-only: a release is final
            return None
        status = execution_status(held=True, outcome=self.evidence.get(partition, f"outcome:{execution_id}"),
                                  reconciled=self.evidence.get(partition, f"reconcile:{execution_id}"),
                                  running=execution_id in self._running)
        if not holds(status):
            self._released.add(execution_id)
            return None
        return {"execution_id": execution_id, "status": status}

    def _refuse_if_held(self, scope: Scope, tool: str) -> int:
        n = self._head(scope, tool)
        holder = self._holder(scope, tool, n)
        if holder is not None:
            raise Refusal("execution_held",
                          f"{tool} in {scope.key} is held by execution {holder['execution_id']} "
                          f"({holder['status']}); nothing was admitted",
                          "inspect that execution; an uncertain effect is never replayed and only the "
                          "owner's reconcile, from independent verification, clears its hold",
                          {"held_by": holder["execution_id"], "status": holder["status"]})
        return n

    def _admit_and_hold(self, session: Session, tool: GuardedTool, arguments: dict[str, Any], key: str,
                        execution_id: str, digest: str, head: int) -> dict[str, Any]:
        """Persist the admission and hold link head+1 in one durable batch: both or neither. The
        link id is a compare-and-set across processes (record ids are unique): when another
        process took it first, the batch is refused whole, the hold is checked again and the
        batch retried at the new head; when the admission itself exists, it is a same-key replay."""
        scope, partition = session.scope, session.scope.partition(EXECUTIONS)
        admission = self._admission(session, tool, arguments, key, execution_id, digest)
        n = head
        for _ in range(MAX_CAS_ATTEMPTS):
            link = {"tool": tool.name, "n": n + 1, "execution_id": execution_id,
                    "held_at": self.evidence.clock().isoformat()}
            try:
                self.evidence.append_many(partition, [(execution_id, admission),
                                                      (hold_link_id(tool.name, n + 1), link)],
                                             crash_before_commit="guarded-admitting")
            except Refusal as refusal:
                if refusal.code != "record_exists":
                    raise
                existing = self.evidence.get(partition, execution_id)
                if existing is not None:
                    return self._replay(scope, replay_or_refuse(existing, digest))
                n = self._refuse_if_held(scope, tool.name)
                continue
            self._heads[(scope.key, tool.name)] = n + 1
            self._links[(scope.key, tool.name, n + 1)] = execution_id
            return admission
        raise Refusal("evidence_busy", f"the hold on {tool.name} kept changing under this admission",
                      "retry with a new key")

    def _admission(self, session: Session, tool: GuardedTool, arguments: dict[str, Any], key: str,
                   execution_id: str, digest: str) -> dict[str, Any]:
        return {"execution_id": execution_id, "kind": "guarded_admission", "version": 1,
                     "tool": tool.name, "tool_version": tool.version, "schema_sha256": tool.schema_sha256,
                     "arguments": arguments, "arguments_sha256": arguments_digest(arguments),
                     "actor": session.principal_id, "scope": session.scope.to_dict(),
                     "idempotency_key": key, "request_sha256": digest,
                     "admitted_at": self.evidence.clock().isoformat()}

    def _hold_link_of(self, scope: Scope, tool: str, execution_id: str) -> dict[str, Any] | None:
        for _, link in self.evidence.records(scope.partition(EXECUTIONS), f"hold:{tool}:"):
            if link["execution_id"] == execution_id:
                return link
        return None

    def _record_not_dispatched(self, scope: Scope, execution_id: str) -> None:
        """An admission that never reached dispatch says so (and holds nothing)."""
        with suppress(Refusal):  # if this fails the admission stays admitted or unknown: any hold stands
            self.evidence.append(scope.partition(EXECUTIONS), f"outcome:{execution_id}",
                                 {"status": "not_dispatched", "at": self.evidence.clock().isoformat()})

    def _replay(self, scope: Scope, admission: dict[str, Any]) -> dict[str, Any]:
        return {"execution_id": admission["execution_id"], "replayed": True, "admission": admission,
                "note": "the original admission; nothing was dispatched again. "
                        "Use guarded_inspect for the latest status"}

    def _dispatch(self, session: Session, attached: _Attached, admission: dict[str, Any]) -> dict[str, Any]:
        """Run the handler once under the deadline and persist what it answered."""
        execution_id = admission["execution_id"]
        context = ExecutionContext(execution_id, admission["idempotency_key"], session.principal_id,
                                   session.scope, attached.tool.name, attached.tool.version,
                                   admission["arguments_sha256"])
        arguments = dict(admission["arguments"])
        handler, with_context = attached.handler, attached.with_context

        def work() -> dict[str, Any]:
            if with_context:
                return handler.invoke(arguments, context=context)
            return handler.invoke(arguments)

        self._running.add(execution_id)
        try:
            future: Future[dict[str, Any]] = self._pool.submit(work)
        except BaseException:
            self._running.discard(execution_id)
            self._slots.release()
            raise

        def finished(_: Future[dict[str, Any]]) -> None:
            self._running.discard(execution_id)
            self._slots.release()

        future.add_done_callback(finished)
        deadline = time.monotonic() + self.timeout
        try:
            result = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            self._uncertain(session.scope, admission, "timeout",
                                   f"the handler did not answer within {self.timeout:g} s")
        except Exception as exc:
            self._uncertain(session.scope, admission, "handler_raised",
                                   f"the handler raised {type(exc).__name__}")
        crash_point("guarded-returned")
        if not isinstance(result, dict):
            self._uncertain(session.scope, admission, "malformed_acknowledgement",
                                   "the handler returned something other than a JSON object")
        outcome = {"status": "acknowledged", "result": result, "at": self.evidence.clock().isoformat()}
        try:
            self.evidence.append(session.scope.partition(EXECUTIONS), f"outcome:{execution_id}", outcome)
        except Refusal as refusal:
            self._uncertain(session.scope, admission, "acknowledgement_not_retained", refusal.detail)
        self._released.add(execution_id)
        return {"execution_id": execution_id, "status": "acknowledged", "admission": admission,
                "result": result,
                "note": "the handler's acknowledgement; it does not verify that the task succeeded"}

    def _uncertain(self, scope: Scope, admission: dict[str, Any], reason: str, detail: str) -> NoReturn:
        """Record an uncertain effect; its hold stands. A failed write leaves it unknown, still held."""
        execution_id = admission["execution_id"]
        outcome = {"status": "uncertain", "reason": reason, "at": self.evidence.clock().isoformat()}
        try:
            self.evidence.append(scope.partition(EXECUTIONS), f"outcome:{execution_id}", outcome)
            status: Status = "uncertain"
        except Refusal:
            status = "unknown"
        raise Refusal("effect_uncertain", f"execution {execution_id}: {detail}; the effect may or may "
                      "not have happened", "do not retry blindly: the hold stands until the owner "
                      "reconciles it from independent verification; guarded_inspect shows it",
                      {"execution_id": execution_id, "status": status, "reason": reason})

    def close(self) -> None:
        """Stop accepting work; running handlers finish on their own."""
        self._pool.shutdown(wait=False, cancel_futures=True)
