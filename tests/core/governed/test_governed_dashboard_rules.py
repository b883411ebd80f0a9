"""The feedback dashboard's rules, one test each (revetly_core.governed.dashboard_rules)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.governed.dashboard_rules import (
    DASHBOARD_ACTIONS,
    DIAGNOSTIC_ONLY,
    DashboardAction,
    activation_offer,
    lifecycle_controls,
    parse_action,
    require_owner_identity,
    require_writable,
    rollback_offer,
    usable_qualifications,
    usage_state,
)

from revetly_core import Refusal
from tests.core.governed.governed_world import START

PROPOSAL = "prop-" + "a" * 32
RUNTIME = {"rule_format": "1", "app": "1.0"}


def qualification(verdict: str = "accepted", *, kind: str = "trusted", days: float = 7,
                  runtime: dict[str, str] | None = None, qid: str = "qual-1") -> dict[str, Any]:
    return {"qualification_id": qid, "verdict": verdict, "qualifier_kind": kind,
            "expires_at": (START + timedelta(days=days)).isoformat(),
            "runtime_versions": RUNTIME if runtime is None else runtime}


def test_parse_action_takes_a_known_action_on_a_proposal_id() -> None:
    parsed = parse_action({"action": "suspend", "target": PROPOSAL, "reason": "noisy", "csrf": "x"})
    assert parsed == DashboardAction("suspend", PROPOSAL, "noisy")


@pytest.mark.parametrize("form, field", [
    ({"action": "delete", "target": PROPOSAL}, "action"),
    ({"target": PROPOSAL}, "action"),
    ({"action": "approve", "target": PROPOSAL, "reason": "x" * 2001}, "reason"),
    ({"action": "activate", "target": PROPOSAL}, "qualification"),
    ({"action": "activate", "target": PROPOSAL, "qualification": "gen-1"}, "qualification"),
    ({"action": "rollback", "target": PROPOSAL, "generation": "one"}, "generation"),
    ({"action": "rollback", "target": PROPOSAL, "generation": "0"}, "generation"),
])
def test_parse_action_refuses_what_the_dashboard_does_not_take(form: dict[str, str], field: str) -> None:
    with pytest.raises(Refusal) as refused:
        parse_action(form)
    assert refused.value.code == "bad-argument" and refused.value.extra["field"] == field


def test_parse_action_refuses_a_target_that_is_not_a_proposal_id() -> None:
    with pytest.raises(Refusal) as refused:
        parse_action({"action": "approve", "target": "../REV-1"})
    assert refused.value.code == "no-proposal"


def test_parse_action_keeps_the_qualification_and_generation_only_where_they_belong() -> None:
    activate = parse_action({"action": "activate", "target": PROPOSAL, "qualification": "qual-9",
                             "generation": "3"})
    assert activate.qualification_id == "qual-9" and activate.generation is None
    rollback = parse_action({"action": "rollback", "target": PROPOSAL, "generation": "3",
                             "qualification": "qual-9"})
    assert rollback.generation == 3 and rollback.qualification_id is None


def test_an_owner_action_is_refused_to_a_non_owner_identity() -> None:
    action = DashboardAction("approve", PROPOSAL)
    require_owner_identity(True, action)
    with pytest.raises(Refusal) as refused:
        require_owner_identity(False, action)
    assert refused.value.code == "not-owner" and refused.value.extra["wrote"] is False


def test_a_read_only_endpoint_takes_no_dashboard_action() -> None:
    action = DashboardAction("suspend", PROPOSAL)
    require_writable(False, action)
    with pytest.raises(Refusal) as refused:
        require_writable(True, action)
    assert refused.value.code == "read-only" and refused.value.extra["setting"] == "served.read_only"


@pytest.mark.parametrize("figure, receipts, state", [
    ({"total": None, "known_subtotal": None, "unknown": 0}, 0, "missing"),
    ({"total": None, "known_subtotal": None, "unknown": 2}, 2, "missing"),
    ({"total": None, "known_subtotal": 3100, "unknown": 1}, 2, "partial"),
    ({"total": "overflow", "known_subtotal": "overflow", "unknown": 0}, 2, "overflow"),
    ({"total": None, "known_subtotal": "overflow", "unknown": 1}, 3, "overflow"),
    ({"total": 3200, "known_subtotal": 3200, "unknown": 0}, 2, "complete"),
])
def test_usage_state_tells_missing_from_partial(figure: dict[str, Any], receipts: int,
                                                state: str) -> None:
    assert usage_state(figure, receipts) == state


@pytest.mark.parametrize("state, controls", [
    ("active", ["shadow", "suspend", "revoke"]),
    ("shadow", ["suspend", "revoke"]),
    ("suspended", ["revoke"]),
    (None, ["revoke"]),
    ("revoked", []),
])
def test_lifecycle_controls_offer_only_the_moves_the_lifecycle_allows(state: str | None,
                                                                      controls: list[str]) -> None:
    assert lifecycle_controls(state, approved=True) == controls


def test_lifecycle_controls_offer_nothing_before_an_approved_review() -> None:
    assert lifecycle_controls("active", approved=False) == []


def test_usable_qualifications_are_accepted_unexpired_and_of_these_runtime_versions() -> None:
    good = qualification(qid="qual-good")
    found = usable_qualifications([
        good, qualification("inconclusive", qid="qual-inc"), qualification(days=-1, qid="qual-old"),
        qualification(runtime={"rule_format": "1", "app": "2.0"}, qid="qual-other")], RUNTIME, START)
    assert found == [good]


def test_activation_is_unavailable_with_only_the_diagnostic_qualifier_and_says_so() -> None:
    offer = activation_offer([qualification("inconclusive", kind="diagnostic")], RUNTIME, START,
                             approved=True, state=None)
    assert offer == {"available": False, "qualifications": [], "reason": DIAGNOSTIC_ONLY}
    assert activation_offer([], RUNTIME, START, approved=True, state=None)["reason"] == DIAGNOSTIC_ONLY


def test_activation_is_offered_with_an_accepted_current_qualification() -> None:
    offer = activation_offer([qualification(qid="qual-7")], RUNTIME, START, approved=True,
                             state="suspended")
    assert offer == {"available": True, "qualifications": ["qual-7"], "reason": None}


@pytest.mark.parametrize("approved, state, qualifications, says", [
    (False, None, [qualification()], "approved review"),
    (True, "revoked", [qualification()], "revoked"),
    (True, None, [qualification(days=-1)], "no accepted, unexpired"),
])
def test_activation_unavailable_names_why(approved: bool, state: str | None,
                                          qualifications: list[dict[str, Any]], says: str) -> None:
    offer = activation_offer(qualifications, RUNTIME, START, approved=approved, state=state)
    assert offer["available"] is False and says in offer["reason"]


def test_rollback_is_offered_to_earlier_active_generations_while_not_revoked() -> None:
    history = [{"generation": 1, "state": "active"}, {"generation": 2, "state": "shadow"},
               {"generation": 3, "state": "active"}, {"generation": 4, "state": "suspended"}]
    assert rollback_offer(history) == [1, 3]
    assert rollback_offer([*history, {"generation": 5, "state": "revoked"}]) == []
    assert rollback_offer([]) == []


def test_a_quarantined_rule_is_offered_neither_its_old_qualifications_nor_a_rollback() -> None:
    history = [{"generation": 1, "state": "active", "qualification_id": "qual-7"},
               {"generation": 2, "state": "quarantined", "quarantined_qualifications": ["qual-7"]}]
    offer = activation_offer([qualification(qid="qual-7")], RUNTIME, START, approved=True,
                             state="quarantined", quarantined=frozenset({"qual-7"}))
    assert offer["available"] is False and "fresh qualification" in offer["reason"]
    assert rollback_offer(history) == []
    fresh = activation_offer([qualification(qid="qual-7"), qualification(qid="qual-8")], RUNTIME,
                             START, approved=True, state="quarantined",
                             quarantined=frozenset({"qual-7"}))
    assert fresh["qualifications"] == ["qual-8"]


FIELDS = st.sampled_from(["action", "target", "reason", "qualification", "generation", "csrf"])
VALUES = st.one_of(st.sampled_from([*DASHBOARD_ACTIONS, PROPOSAL, "qual-1", "3", "0", ""]),
                   st.text(max_size=40), st.integers(), st.none())


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(FIELDS, VALUES, max_size=6))
def test_parse_action_answers_an_action_or_a_refusal_for_any_form(form: dict[str, object]) -> None:
    try:
        parsed = parse_action(form)
    except Refusal as refusal:
        assert refusal.code in ("bad-argument", "no-proposal")
        return
    assert parsed.action in DASHBOARD_ACTIONS and parsed.target == form["target"]
    assert len(parsed.reason) <= 2000
    assert (parsed.qualification_id is not None) == (parsed.action == "activate")
    assert (parsed.generation is not None) == (parsed.action == "rollback")
