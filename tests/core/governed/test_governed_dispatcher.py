"""GuardedDispatcher in-process: admission and hold before dispatch, retries, uncertainty, context."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from revetly_core.governed.execution_state import EXECUTIONS, execution_status, holds
from revetly_core.governed.principals import token_hash

from revetly_core import EvidenceService, FeedbackService, GuardedDispatcher, GuardedTool, Refusal, Scope
from tests.core.governed.governed_world import START, World, make_world
from tests.core.governed.guarded_world import SEND, Guarded, JournalBackend, PlainHandler, make_guarded

ARGS = {"to": "ops", "text": "deploy finished"}


@pytest.fixture()
def guarded(world: World, tmp_path: Path) -> Guarded:
    return make_guarded(world, tmp_path, timeout=5.0)


def _execute(g: Guarded, key: str, args: dict[str, str] | None = None) -> dict[str, object]:
    return g.dispatcher.execute(g.world.session, "send_notice", args or ARGS, idempotency_key=key)


def _uncertain(g: Guarded, key: str = "k-lost") -> str:
    g.backend.fail = True
    with pytest.raises(Refusal) as caught:
        _execute(g, key)
    g.backend.fail = False
    assert caught.value.code == "effect_uncertain"
    return str(caught.value.extra["execution_id"])


def test_an_acknowledged_execution_returns_the_handler_response(guarded: Guarded) -> None:
    answer = _execute(guarded, "k1")
    assert answer["status"] == "acknowledged"
    assert answer["result"] == {"sent": True, "effect_ref": "msg-1"}
    assert "does not verify" in str(answer["note"])
    assert len(guarded.backend.lines()) == 1


def test_admission_and_hold_are_persisted_before_the_handler_runs(guarded: Guarded) -> None:
    seen: list[dict[str, object]] = []
    guarded.backend.release.clear()
    worker = threading.Thread(target=lambda: seen.append(_execute(guarded, "k1")))
    worker.start()
    while not guarded.backend.contexts:
        threading.Event().wait(0.01)
    execution_id = guarded.backend.contexts[0].execution_id
    during = guarded.dispatcher.state(guarded.world.scope, execution_id)
    guarded.backend.release.set()
    worker.join()
    assert during["status"] == "dispatching" and during["hold"] is True
    assert during["admission"]["arguments"] == ARGS
    assert seen[0]["status"] == "acknowledged"


def test_a_same_key_retry_returns_the_original_admission_and_never_dispatches_again(guarded: Guarded) -> None:
    first = _execute(guarded, "k1")
    again = _execute(guarded, "k1")
    assert again["replayed"] is True
    assert again["admission"] == first["admission"]
    assert "guarded_inspect" in str(again["note"])
    assert len(guarded.backend.lines()) == 1


def test_a_same_key_with_other_arguments_is_an_idempotency_conflict(guarded: Guarded) -> None:
    _execute(guarded, "k1")
    with pytest.raises(Refusal) as caught:
        _execute(guarded, "k1", {"to": "ops", "text": "something else"})
    assert caught.value.code == "idempotency_conflict"
    assert len(guarded.backend.lines()) == 1


def test_arguments_outside_the_exact_schema_are_refused_before_admission(guarded: Guarded) -> None:
    partition = guarded.world.scope.partition(EXECUTIONS)
    for bad in ({"to": "ops"}, {"to": "ops", "text": "x", "cc": "all"}, {"to": "", "text": "x"}):
        with pytest.raises(Refusal) as caught:
            _execute(guarded, "k-bad", bad)
        assert caught.value.code == "bad_tool_arguments"
    assert guarded.world.evidence.records(partition) == []
    assert guarded.backend.lines() == []


def test_a_handler_that_raises_leaves_an_uncertain_receipt_and_a_standing_hold(guarded: Guarded) -> None:
    execution_id = _uncertain(guarded)
    state = guarded.dispatcher.inspect(guarded.world.session, execution_id)
    assert state["status"] == "uncertain" and state["hold"] is True
    assert state["outcome"]["reason"] == "handler_raised"


def test_a_timeout_leaves_an_uncertain_receipt_and_a_standing_hold(world: World, tmp_path: Path) -> None:
    g = make_guarded(world, tmp_path, timeout=0.2)
    g.backend.release.clear()
    with pytest.raises(Refusal) as caught:
        _execute(g, "k-slow")
    assert caught.value.code == "effect_uncertain" and caught.value.extra["reason"] == "timeout"
    execution_id = str(caught.value.extra["execution_id"])
    assert g.dispatcher.running(execution_id)
    g.backend.release.set()
    state = g.dispatcher.state(world.scope, execution_id)
    assert state["status"] == "uncertain" and state["hold"] is True


def test_the_uncertain_hold_survives_a_new_retry_key(guarded: Guarded) -> None:
    execution_id = _uncertain(guarded)
    with pytest.raises(Refusal) as caught:
        _execute(guarded, "k-new")
    assert caught.value.code == "execution_held"
    assert caught.value.extra["held_by"] == execution_id
    assert len(guarded.backend.lines()) == 1


def test_a_same_key_retry_of_an_uncertain_execution_is_not_replayed(guarded: Guarded) -> None:
    _uncertain(guarded)
    again = _execute(guarded, "k-lost")
    assert again["replayed"] is True
    assert len(guarded.backend.lines()) == 1


def test_the_uncertain_hold_survives_a_restart(guarded: Guarded, tmp_path: Path) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    guarded.dispatcher.close()
    w.rag.close()
    w.evidence.close()
    evidence = EvidenceService.open(w.root, "vault", clock=w.clock)
    try:
        dispatcher = GuardedDispatcher(FeedbackService(evidence))
        backend = JournalBackend(tmp_path / "journal.jsonl")
        dispatcher.register(w.owner, w.scope, SEND, backend, with_context=True)
        session = evidence.principals.session(w.app_token, w.scope)
        with pytest.raises(Refusal) as caught:
            dispatcher.execute(session, "send_notice", ARGS, idempotency_key="k-after-restart")
        assert caught.value.code == "execution_held" and caught.value.extra["held_by"] == execution_id
        assert dispatcher.execute(session, "send_notice", ARGS, idempotency_key="k-lost")["replayed"] is True
        assert backend.contexts == []
    finally:
        evidence.close()
    # the world fixture closes its own (already closed) services again: reopen them for it
    w.evidence = EvidenceService.open(w.root, "vault", clock=w.clock)


def test_the_uncertain_hold_survives_source_cleanup_and_tool_re_registration(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    w.rag.revoke_source(w.owner, "law")
    guarded.dispatcher.withdraw(w.owner, w.scope, "send_notice")
    guarded.dispatcher.register(w.owner, w.scope, SEND, guarded.backend, with_context=True)
    with pytest.raises(Refusal) as caught:
        _execute(guarded, "k-new")
    assert caught.value.extra["held_by"] == execution_id


def test_a_deliberate_new_invocation_is_allowed_after_a_healthy_acknowledgement(guarded: Guarded) -> None:
    _execute(guarded, "k1")
    assert _execute(guarded, "k2")["status"] == "acknowledged"
    assert len(guarded.backend.lines()) == 2


def test_the_hold_is_per_tool(guarded: Guarded) -> None:
    w = guarded.world
    other = GuardedTool("page_oncall", "1", "Page the on-call.", {"type": "object"})
    guarded.dispatcher.register(w.owner, w.scope, other, PlainHandler())
    _uncertain(guarded)
    assert guarded.dispatcher.execute(w.session, "page_oncall", {}, idempotency_key="p1")["status"] == \
        "acknowledged"


def test_with_context_handlers_get_receipt_key_actor_and_scope_but_no_credential(guarded: Guarded) -> None:
    w = guarded.world
    answer = _execute(guarded, "k1")
    (context,) = guarded.backend.contexts
    assert context.execution_id == answer["execution_id"]
    assert context.idempotency_key == "k1"
    assert context.actor == w.principal_id
    assert context.scope == w.scope
    fields = set(vars(context))
    assert fields == {"execution_id", "idempotency_key", "actor", "scope", "tool", "tool_version",
                      "arguments_sha256"}
    text = repr(context) + repr(context.to_dict())
    assert w.app_token not in text and token_hash(w.app_token) not in text and w.owner not in text


def test_plain_handlers_get_only_the_arguments(world: World) -> None:
    world.evidence.principals.grant(world.owner, world.principal_id, ["execute"], world.scope,
                                    START + timedelta(days=1))
    dispatcher = GuardedDispatcher(world.feedback)
    handler = PlainHandler()
    dispatcher.register(world.owner, world.scope, SEND, handler)
    dispatcher.execute(world.session, "send_notice", ARGS, idempotency_key="k1")
    assert handler.calls == [(ARGS, (), {})]


def test_guarded_tools_lists_exact_schemas_and_versions(guarded: Guarded) -> None:
    (tool,) = guarded.dispatcher.tools(guarded.world.session)["tools"]
    assert tool["name"] == "send_notice" and tool["version"] == "1.0.0"
    assert tool["input_schema"] == SEND.input_schema
    assert tool["schema_sha256"] == SEND.schema_sha256
    assert tool["available"] is True and tool["with_context"] is True


def test_execute_needs_the_execute_grant_and_inspect_the_read_grant(tmp_path: Path) -> None:
    w = make_world(tmp_path / "homes", operations=("search",))
    try:
        dispatcher = GuardedDispatcher(w.feedback)
        dispatcher.register(w.owner, w.scope, SEND, PlainHandler())
        for call in (lambda: dispatcher.execute(w.session, "send_notice", ARGS, idempotency_key="k"),
                     lambda: dispatcher.tools(w.session),
                     lambda: dispatcher.inspect(w.session, "exec-" + "0" * 32)):
            with pytest.raises(Refusal) as caught:
                call()
            assert caught.value.code == "not_authorized"
    finally:
        w.rag.close()
        w.evidence.close()


def test_registration_is_owner_only(guarded: Guarded) -> None:
    with pytest.raises(Refusal) as caught:
        guarded.dispatcher.register(guarded.world.app_token, guarded.world.scope, SEND, PlainHandler())
    assert caught.value.code == "not_owner"


def test_a_tool_without_a_handler_here_is_refused_and_nothing_admitted(guarded: Guarded) -> None:
    w = guarded.world
    other = GuardedDispatcher(w.feedback)  # another process: the registration exists, no handler
    assert other.tools(w.session)["tools"][0]["available"] is False
    with pytest.raises(Refusal) as caught:
        other.execute(w.session, "send_notice", ARGS, idempotency_key="k1")
    assert caught.value.code == "guarded_tool_unavailable"
    assert w.evidence.records(w.scope.partition(EXECUTIONS)) == []


def test_a_changed_schema_is_a_new_registration_the_old_handler_does_not_serve(guarded: Guarded) -> None:
    w = guarded.world
    changed = GuardedTool("send_notice", "2.0.0", SEND.description, {"type": "object"})
    GuardedDispatcher(w.feedback).register(w.owner, w.scope, changed, PlainHandler())
    with pytest.raises(Refusal) as caught:
        _execute(guarded, "k1")
    assert caught.value.code == "guarded_tool_unavailable"


def test_an_execution_of_another_scope_is_not_inspectable(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = str(_execute(guarded, "k1")["execution_id"])
    other = Scope("reader", "project")
    w.evidence.principals.grant(w.owner, w.principal_id, ["read"], other, START + timedelta(days=1))
    with pytest.raises(Refusal) as caught:
        guarded.dispatcher.inspect(w.evidence.principals.session(w.app_token, other), execution_id)
    assert caught.value.code == "no_execution"


def test_bad_schemas_names_and_ids_are_refused() -> None:
    with pytest.raises(Refusal) as caught:
        GuardedTool("t", "1", "", {"type": "string"})
    assert caught.value.code == "bad_tool_schema"
    with pytest.raises(Refusal) as caught:
        GuardedTool("t", "1", "", {"type": "object", "properties": {"a": {"type": 3}}})
    assert caught.value.code == "bad_tool_schema"
    with pytest.raises(Refusal) as caught:
        GuardedTool("Send Mail", "1", "", {"type": "object"})
    assert caught.value.code == "bad_tool_name"


@pytest.mark.parametrize(("held", "outcome", "reconciled", "running", "status"), [
    (False, None, None, False, "admitted"),
    (True, None, None, True, "dispatching"),
    (True, None, None, False, "unknown"),
    (True, {"status": "uncertain"}, None, False, "uncertain"),
    (True, {"status": "acknowledged"}, None, False, "acknowledged"),
    (True, {"status": "not_dispatched"}, None, False, "not_dispatched"),
    (True, {"status": "uncertain"}, {"terminal_status": "failed"}, False, "reconciled"),
])
def test_execution_status_follows_the_retained_records(held: bool, outcome: dict[str, str] | None,
                                                       reconciled: dict[str, str] | None, running: bool,
                                                       status: str) -> None:
    assert execution_status(held=held, outcome=outcome, reconciled=reconciled, running=running) == status
    assert holds(execution_status(held=held, outcome=outcome, reconciled=reconciled, running=running)) == \
        (status in ("dispatching", "unknown", "uncertain"))
