"""Helpers of the guarded-execution tests: a backend with an operation journal, tools, verifiers."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from revetly_core.governed.guarded_tools import ExecutionContext

from revetly_core import GuardedDispatcher, GuardedTool, Session, VerificationService
from tests.core.governed.governed_world import START, World

SEND = GuardedTool("send_notice", "1.0.0", "Send a notice to a recipient.", {
    "type": "object", "additionalProperties": False, "required": ["to", "text"],
    "properties": {"to": {"type": "string", "minLength": 1}, "text": {"type": "string"}}})


class JournalBackend:
    """A destination whose every effect is one line of a JSON-lines operation journal (a real file)."""

    def __init__(self, path: Path, *, run_id: str = "run-1", turn_id: str = "turn-1") -> None:
        self.path = path
        self.run_id, self.turn_id = run_id, turn_id
        self.contexts: list[ExecutionContext] = []
        self.release = threading.Event()
        self.release.set()
        self.fail = False

    def invoke(self, arguments: dict[str, Any], *, context: ExecutionContext) -> dict[str, Any]:
        self.contexts.append(context)
        self.release.wait()
        entry = {"run_id": self.run_id, "turn_id": self.turn_id, "invocation_id": context.execution_id,
                 "arguments_sha256": context.arguments_sha256, "effect_ref": f"msg-{len(self.lines()) + 1}",
                 "status": "succeeded", "to": arguments["to"], "text": arguments["text"]}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
        if self.fail:
            raise ConnectionError("the acknowledgement was lost")
        return {"sent": True, "effect_ref": entry["effect_ref"]}

    def lines(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines()]

    def journal_entry(self, execution_id: str) -> dict[str, Any]:
        entry = next(e for e in self.lines() if e["invocation_id"] == execution_id)
        return {k: entry[k] for k in ("run_id", "turn_id", "invocation_id", "arguments_sha256", "effect_ref",
                                      "status")}


class PlainHandler:
    """A handler registered without context: it sees the arguments only."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def invoke(self, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        self.calls.append((arguments, args, kwargs))
        return {"ok": True}


def effect_verifier(backend: JournalBackend) -> Any:
    """An effect_receipt callback: destination state (the journal line's text) plus the journal entry."""

    def check(admission: dict[str, Any]) -> dict[str, Any]:
        entry = next((e for e in backend.lines() if e["invocation_id"] == admission["execution_id"]), None)
        observed = entry["text"] if entry else None
        return {"checks": [{"name": "text delivered", "method": "read the destination's journal line",
                            "observed": observed, "expected": admission["arguments"]["text"]}],
                "journal": backend.journal_entry(admission["execution_id"]) if entry else None}

    return check


@dataclass
class Guarded:
    world: World
    dispatcher: GuardedDispatcher
    verification: VerificationService
    backend: JournalBackend
    verifier_id: str
    verifier_token: str
    verifier: Session


def make_guarded(world: World, tmp_path: Path, *, timeout: float = 5.0) -> Guarded:
    """Grant the app execute/read, register send_notice with a journal backend (with context), and
    issue a separate verifier identity holding verify, registered as an effect_receipt verifier."""
    w = world
    w.evidence.principals.grant(w.owner, w.principal_id, ["execute", "read"], w.scope,
                                START + timedelta(days=1))
    dispatcher = GuardedDispatcher(w.feedback, timeout=timeout)
    backend = JournalBackend(tmp_path / "journal.jsonl")
    dispatcher.register(w.owner, w.scope, SEND, backend, with_context=True)
    verification = VerificationService(dispatcher)
    verifier_id, verifier_token = w.evidence.principals.issue_credential(w.owner, "verifier")
    w.evidence.principals.grant(w.owner, verifier_id, ["verify"], w.scope, START + timedelta(days=1))
    verification.register_verifier(w.owner, w.scope, "journal-check", verifier_id, "send_notice",
                                   effect_verifier(backend), binding="effect_receipt")
    return Guarded(w, dispatcher, verification, backend, verifier_id, verifier_token,
                   w.evidence.principals.session(verifier_token, w.scope))
