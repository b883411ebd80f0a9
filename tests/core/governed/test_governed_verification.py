"""VerificationService: separately authenticated verifiers, bindings, and the owner's reconcile."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from revetly_core.governed.verification import Check, check_passes, verdict

from revetly_core import Refusal
from tests.core.governed.governed_world import START, World
from tests.core.governed.guarded_world import Guarded, effect_verifier, make_guarded

ARGS = {"to": "ops", "text": "deploy finished"}


@pytest.fixture()
def guarded(world: World, tmp_path: Path) -> Guarded:
    return make_guarded(world, tmp_path)


def _uncertain(g: Guarded, key: str = "k-lost") -> str:
    g.backend.fail = True
    with pytest.raises(Refusal) as caught:
        g.dispatcher.execute(g.world.session, "send_notice", ARGS, idempotency_key=key)
    g.backend.fail = False
    return str(caught.value.extra["execution_id"])


def _verify(g: Guarded, execution_id: str, key: str = "v1",
            verifier: str = "journal-check") -> dict[str, Any]:
    return g.verification.verify(g.verifier, verifier, execution_id, idempotency_key=key)


def _refused(code: str, call: Any) -> Refusal:
    with pytest.raises(Refusal) as caught:
        call()
    assert caught.value.code == code, caught.value
    return caught.value


def _second_identity(g: Guarded, operations: list[str]) -> Any:
    w = g.world
    principal, token = w.evidence.principals.issue_credential(w.owner, "another")
    w.evidence.principals.grant(w.owner, principal, operations, w.scope, START + timedelta(days=1))
    return principal, w.evidence.principals.session(token, w.scope)


def test_a_verifier_with_the_wrong_identity_is_refused(guarded: Guarded) -> None:
    execution_id = _uncertain(guarded)
    _, impostor = _second_identity(guarded, ["verify"])
    _refused("verifier_identity_mismatch", lambda: guarded.verification.verify(
        impostor, "journal-check", execution_id, idempotency_key="v1"))


def test_the_application_session_holds_no_verify_grant(guarded: Guarded) -> None:
    execution_id = _uncertain(guarded)
    _refused("not_authorized", lambda: guarded.verification.verify(
        guarded.world.session, "journal-check", execution_id, idempotency_key="v1"))


def test_the_actor_cannot_verify_its_own_execution(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    w.evidence.principals.grant(w.owner, w.principal_id, ["verify"], w.scope, START + timedelta(days=1))
    guarded.verification.register_verifier(w.owner, w.scope, "self-check", w.principal_id, "send_notice",
                                           effect_verifier(guarded.backend), binding="effect_receipt")
    _refused("verifier_not_independent", lambda: guarded.verification.verify(
        w.session, "self-check", execution_id, idempotency_key="v1"))


def test_verifier_registration_is_owner_only(guarded: Guarded) -> None:
    w = guarded.world
    _refused("not_owner", lambda: guarded.verification.register_verifier(
        w.app_token, w.scope, "x", guarded.verifier_id, "send_notice", effect_verifier(guarded.backend)))


def test_an_effect_bound_verification_retains_checks_and_the_journal_entry(guarded: Guarded) -> None:
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    assert record["binding"] == "effect_receipt" and record["verdict"] == "verified_success"
    assert record["journal"] == guarded.backend.journal_entry(execution_id)
    assert record["checks"][0] == {"name": "text delivered", "method": "read the destination's journal line",
                                   "observed": ARGS["text"], "expected": ARGS["text"], "passed": True}
    assert _verify(guarded, execution_id) == record  # a same-key retry is the retained record


def test_reconcile_clears_an_uncertain_hold(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    done = guarded.verification.reconcile(w.owner, w.scope, execution_id, record["verification_id"],
                                          guarded.backend.journal_entry(execution_id))
    assert done["terminal_status"] == "succeeded" and done["task_result"] == "succeeded"
    state = guarded.dispatcher.inspect(w.session, execution_id)
    assert state["status"] == "reconciled" and state["hold"] is False
    again = guarded.dispatcher.execute(w.session, "send_notice", ARGS, idempotency_key="k-corrected")
    assert again["status"] == "acknowledged"
    assert len(guarded.backend.lines()) == 2  # the uncertain effect was never replayed


def test_reconcile_is_owner_only(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    _refused("not_owner", lambda: guarded.verification.reconcile(
        guarded.verifier_token, w.scope, execution_id, record["verification_id"],
        guarded.backend.journal_entry(execution_id)))


def test_state_only_is_the_default_and_cannot_clear_a_hold(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    guarded.verification.register_verifier(w.owner, w.scope, "state-check", guarded.verifier_id,
                                           "send_notice", effect_verifier(guarded.backend))
    record = _verify(guarded, execution_id, verifier="state-check")
    assert record["binding"] == "state_only" and record["verdict"] == "state_only"
    assert record["journal"] is None
    _refused("verification_not_effect_bound", lambda: guarded.verification.reconcile(
        w.owner, w.scope, execution_id, record["verification_id"],
        guarded.backend.journal_entry(execution_id)))
    assert guarded.dispatcher.inspect(w.session, execution_id)["hold"] is True


def test_reconcile_needs_a_backend_terminal_journal_receipt(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    unknown = {**guarded.backend.journal_entry(execution_id), "status": "unknown"}
    _refused("journal_not_terminal", lambda: guarded.verification.reconcile(
        w.owner, w.scope, execution_id, record["verification_id"], unknown))


def test_reconcile_refuses_a_receipt_other_than_the_verified_one(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    other = {**guarded.backend.journal_entry(execution_id), "effect_ref": "msg-99"}
    _refused("journal_mismatch", lambda: guarded.verification.reconcile(
        w.owner, w.scope, execution_id, record["verification_id"], other))


def test_a_model_assertion_is_not_a_journal_receipt(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    _refused("bad_journal_receipt", lambda: guarded.verification.reconcile(
        w.owner, w.scope, execution_id, record["verification_id"],
        {"status": "succeeded", "note": "trust me"}))


def test_a_changed_verifier_prevents_reconciliation(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    guarded.verification.register_verifier(w.owner, w.scope, "journal-check", guarded.verifier_id,
                                           "send_notice", effect_verifier(guarded.backend),
                                           binding="effect_receipt", version="2")
    _refused("verifier_changed", lambda: guarded.verification.reconcile(
        w.owner, w.scope, execution_id, record["verification_id"],
        guarded.backend.journal_entry(execution_id)))


def test_disputed_verifications_prevent_reconciliation(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    record = _verify(guarded, execution_id)
    entry = guarded.backend.journal_entry(execution_id)

    def failed_reading(admission: dict[str, Any]) -> dict[str, Any]:
        return {"checks": [{"name": "text delivered", "method": "mailbox", "observed": None,
                            "expected": admission["arguments"]["text"]}],
                "journal": {**entry, "status": "failed"}}

    guarded.verification.register_verifier(w.owner, w.scope, "second-look", guarded.verifier_id,
                                           "send_notice", failed_reading, binding="effect_receipt")
    _verify(guarded, execution_id, key="v2", verifier="second-look")
    _refused("verification_disputed", lambda: guarded.verification.reconcile(
        w.owner, w.scope, execution_id, record["verification_id"], entry))


def test_one_effect_reference_cannot_prove_two_invocations(guarded: Guarded) -> None:
    w = guarded.world
    first = str(guarded.dispatcher.execute(w.session, "send_notice", ARGS,
                                           idempotency_key="k1")["execution_id"])
    second = _uncertain(guarded)
    entry = guarded.backend.journal_entry(first)

    def reused(admission: dict[str, Any]) -> dict[str, Any]:
        return {"checks": [{"name": "sent", "method": "journal", "observed": 1, "expected": 1}],
                "journal": {**entry, "invocation_id": admission["execution_id"]}}

    guarded.verification.register_verifier(w.owner, w.scope, "reuser", guarded.verifier_id, "send_notice",
                                           reused, binding="effect_receipt")
    _verify(guarded, first, key="v1")
    _refused("effect_reference_reused", lambda: _verify(guarded, second, key="v2", verifier="reuser"))


def test_a_journal_entry_of_another_invocation_is_unbound(guarded: Guarded) -> None:
    w = guarded.world
    first = str(guarded.dispatcher.execute(w.session, "send_notice", ARGS,
                                           idempotency_key="k1")["execution_id"])
    second = _uncertain(guarded)
    entry = guarded.backend.journal_entry(first)
    guarded.verification.register_verifier(
        w.owner, w.scope, "wrong-line", guarded.verifier_id, "send_notice",
        lambda a: {"checks": [{"name": "n", "method": "m", "observed": 1, "expected": 1}], "journal": entry},
        binding="effect_receipt")
    _refused("journal_unbound", lambda: _verify(guarded, second, verifier="wrong-line"))


def test_a_failed_task_is_reconciled_but_not_promoted_to_success(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    entry = guarded.backend.journal_entry(execution_id)
    guarded.verification.register_verifier(
        w.owner, w.scope, "strict", guarded.verifier_id, "send_notice",
        lambda a: {"checks": [{"name": "text", "method": "m", "observed": "deploy", "expected": "finished"}],
                   "journal": entry}, binding="effect_receipt")
    record = _verify(guarded, execution_id, verifier="strict")
    assert record["verdict"] == "task_failed" and record["checks_passed"] is False
    done = guarded.verification.reconcile(w.owner, w.scope, execution_id, record["verification_id"], entry)
    assert done["terminal_status"] == "succeeded" and done["task_result"] == "not_succeeded"
    assert guarded.dispatcher.inspect(w.session, execution_id)["hold"] is False


def test_correct_state_after_a_failed_operation_is_not_success() -> None:
    from revetly_core.governed.verification import JournalEntry

    entry = JournalEntry(run_id="r", turn_id="t", invocation_id="i", arguments_sha256="0" * 64,
                         effect_ref="e", status="failed")
    assert verdict("effect_receipt", True, entry) == "effect_not_succeeded"
    assert verdict("state_only", True, None) == "state_only"
    assert verdict("effect_receipt", True, entry.model_copy(update={"status": "unknown"})) == "effect_unknown"


def test_a_still_running_handler_prevents_reconciliation(world: World, tmp_path: Path) -> None:
    g = make_guarded(world, tmp_path, timeout=0.2)
    g.backend.release.clear()
    with pytest.raises(Refusal) as caught:
        g.dispatcher.execute(world.session, "send_notice", ARGS, idempotency_key="k-slow")
    execution_id = str(caught.value.extra["execution_id"])
    admission = g.dispatcher.state(world.scope, execution_id)["admission"]
    entry = {"run_id": "run-1", "turn_id": "turn-1", "invocation_id": execution_id,
             "arguments_sha256": admission["arguments_sha256"],
             "effect_ref": "msg-1", "status": "succeeded"}
    _refused("handler_still_running", lambda: g.verification.reconcile(
        world.owner, world.scope, execution_id, "ver-" + "0" * 32, entry))
    g.backend.release.set()


def test_an_acknowledged_execution_has_nothing_to_reconcile(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = str(guarded.dispatcher.execute(w.session, "send_notice", ARGS,
                                                  idempotency_key="k1")["execution_id"])
    record = _verify(guarded, execution_id)
    assert record["verdict"] == "verified_success"  # an acknowledged action can still be verified
    _refused("nothing_to_reconcile", lambda: guarded.verification.reconcile(
        w.owner, w.scope, execution_id, record["verification_id"],
        guarded.backend.journal_entry(execution_id)))


def test_a_readback_of_the_wrong_shape_is_refused_not_partially_retained(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    guarded.verification.register_verifier(w.owner, w.scope, "sloppy", guarded.verifier_id, "send_notice",
                                           lambda a: {"checks": [], "verdict": "success"},
                                           binding="effect_receipt")
    _refused("bad_readback", lambda: _verify(guarded, execution_id, verifier="sloppy"))


def test_a_check_passes_only_on_exactly_equal_typed_values() -> None:
    def check(observed: object, expected: object) -> bool:
        return check_passes(Check(name="n", method="m", observed=observed, expected=expected))

    assert check({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not check(1, "1")
    assert not check(True, 1)
    assert not check(None, "")


def test_a_verification_bound_to_an_outcome_keeps_its_digest_and_needs_its_run(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)
    mine = w.feedback.report_outcome(w.session, {"run_id": "run-1", "task_id": "t1", "status": "succeeded"},
                                     "o1")
    other = w.feedback.report_outcome(w.session, {"run_id": "run-9", "task_id": "t1", "status": "succeeded"},
                                      "o2")
    bound = guarded.verification.verify(guarded.verifier, "journal-check", execution_id, idempotency_key="v1",
                                        outcome_id=mine["outcome_id"])
    assert bound["outcome"]["outcome_id"] == mine["outcome_id"]
    _refused("journal_unbound", lambda: guarded.verification.verify(
        guarded.verifier, "journal-check", execution_id, idempotency_key="v2",
        outcome_id=other["outcome_id"]))
    _refused("no_outcome", lambda: guarded.verification.verify(
        guarded.verifier, "journal-check", execution_id, idempotency_key="v3", outcome_id="out-missing"))


def test_a_callback_that_raises_is_a_refusal_and_retains_nothing(guarded: Guarded) -> None:
    w = guarded.world
    execution_id = _uncertain(guarded)

    def broken(admission: dict[str, Any]) -> dict[str, Any]:
        raise OSError("the backend is down")

    guarded.verification.register_verifier(w.owner, w.scope, "broken", guarded.verifier_id, "send_notice",
                                           broken, binding="effect_receipt")
    refusal = _refused("verifier_failed", lambda: _verify(guarded, execution_id, verifier="broken"))
    assert "the backend is down" not in refusal.detail
    assert w.evidence.records(w.scope.partition("verifications"), "ver-") == []
