"""FeedbackDashboard over a real vault and a real canonical memory: what the screen shows, and
owner actions applied through the review path and RuleLifecycle."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from revetly_core import (
    DashboardIdentity,
    Engine,
    EvidenceService,
    FeedbackDashboard,
    FeedbackService,
    GuardedDispatcher,
    ProposalService,
    Refusal,
    RuleLifecycle,
    Scope,
)
from tests.core.gitrepo import Instance
from tests.core.governed.governed_world import START, Clock
from tests.core.governed.proposal_world import seed_instance
from tests.support.dashboard_world import (
    OPEN_TICKET,
    RUNTIME,
    SCOPE,
    TICKET_ARGUMENTS,
    VAULT_ID,
    DashboardWorld,
    build_dashboard_world,
)


@dataclass
class Screen:
    world: DashboardWorld
    instance: Instance
    evidence: EvidenceService
    dashboard: FeedbackDashboard
    owner: DashboardIdentity
    viewer: DashboardIdentity
    opened: list[str]

    def lifecycle(self) -> RuleLifecycle:
        memory = Engine.open(self.instance.root)
        return RuleLifecycle(ProposalService(FeedbackService(self.evidence), memory),
                             runtime_versions=RUNTIME)

    def identity_in(self, scope: Scope, operations: list[str], *, name: str = "Dana",
                    owner: bool = True) -> DashboardIdentity:
        """A new application principal granted `operations` in `scope`, as a dashboard identity."""
        principals = self.evidence.principals
        principal, token = principals.issue_credential(self.world.owner, f"{name} reader")
        principals.grant(self.world.owner, principal, operations, scope, START + timedelta(days=1))
        return DashboardIdentity(name, principals.session(token, scope), owner=owner)


@pytest.fixture()
def screen(instance: Instance, tmp_path: Path) -> Iterator[Screen]:
    seed_instance(instance)
    clock = Clock()
    world = build_dashboard_world(instance.root, tmp_path / "homes", tmp_path / "work", now=START,
                                  clock=clock)
    evidence = EvidenceService.open(tmp_path / "homes", VAULT_ID, clock=clock)
    session = evidence.principals.session(world.reader_token, SCOPE)
    owner = DashboardIdentity("Dana", session, owner=True)
    viewer = DashboardIdentity("Bo", session)
    opened: list[str] = []

    def memory() -> Engine:
        opened.append(threading.current_thread().name)
        return Engine.open(instance.root)

    people = {"dana": owner, "bo": viewer}
    dashboard = FeedbackDashboard(FeedbackService(evidence), owner_token=world.owner,
                                  binding=lambda claims: people.get(str(claims.get("sub"))),
                                  memory_factory=memory, runtime_versions=RUNTIME)
    yield Screen(world, instance, evidence, dashboard, owner, viewer, opened)
    evidence.close()


def moved(screen: Screen, action: str, rule: str) -> str:
    """Post one lifecycle move as the owner; the state it left the rule in."""
    return str(screen.dashboard.act(screen.owner, {"action": action, "target": rule})["answer"]["state"])


def proposal_of(view: dict[str, Any], proposal_id: str) -> dict[str, Any]:
    return next(p for p in view["proposals"]["items"] if p["proposal_id"] == proposal_id)


def test_the_screen_shows_the_real_quality_counts_of_the_scope(screen: Screen) -> None:
    view = screen.dashboard.view(screen.owner)
    assert view["status"] == "ready" and view["scope"] == SCOPE.to_dict()
    [weekly] = view["quality"]
    assert (weekly["scheduled"], weekly["observed"], weekly["missing"]) == (3, 2, 1)
    assert (weekly["succeeded"], weekly["failed"], weekly["unknown"]) == (1, 1, 0)
    assert weekly["rates"]["success"] == 0.5 and weekly["task_class"] == "refunds"


def test_usage_shows_partial_apart_from_complete(screen: Screen) -> None:
    usage = screen.dashboard.view(screen.owner)["usage"]
    assert usage["states"] == {"usd_micros": "partial", "input_tokens": "complete",
                               "output_tokens": "complete", "model_calls": "complete"}
    assert usage["usd_micros"]["total"] is None and usage["usd_micros"]["known_subtotal"] == 3100
    assert usage["input_tokens"]["total"] == 3200


def test_usage_of_a_scope_with_nothing_captured_is_missing_not_zero(screen: Screen, tmp_path: Path) -> None:
    view = screen.dashboard.view(screen.identity_in(Scope("desk", "billing"), ["read"]))
    assert set(view["usage"]["states"].values()) == {"missing"}
    assert view["usage"]["model_calls"]["total"] is None
    assert view["quality"] == [] and view["actions"] == []


def test_each_action_shows_its_exact_arguments_checks_and_source_evidence(screen: Screen) -> None:
    [action] = screen.dashboard.view(screen.viewer)["actions"]
    assert action["execution_id"] == screen.world.execution_id
    assert action["arguments"] == TICKET_ARGUMENTS and action["status"] == "acknowledged"
    assert action["hold"] is False and action["acknowledgement"] == {"ticket": "T-1"}
    [check] = action["checks"]
    assert check["binding"] == "state_only" and check["verdict"] == "state_only"
    assert check["checks"][0]["method"] == "GET /tickets?customer=acme" and check["checks"][0]["passed"]
    [source] = action["sources"]
    assert source["outcome_id"] == screen.world.outcome_id and source["verification"] == "unverified"
    [receipt] = source["receipts"]
    assert receipt["receipt_id"] == screen.world.receipt_id and receipt["sources"] == ["policies@r1"]
    [hit] = receipt["hits"]
    assert hit["citation"] == "Refund policy §2" and len(hit["passage_sha256"]) == 64


class Held:
    """A handler that answers only when the test lets it."""

    def __init__(self) -> None:
        self.go = threading.Event()

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.go.wait(60)
        return {"ticket": "T-2"}


def test_an_action_whose_handler_runs_here_shows_dispatching_and_its_hold(screen: Screen) -> None:
    actor = screen.identity_in(SCOPE, ["execute"], name="Desk")
    dispatcher = GuardedDispatcher(screen.dashboard.feedback)
    handler = Held()
    dispatcher.register(screen.world.owner, SCOPE, OPEN_TICKET, handler)
    watching = FeedbackDashboard(screen.dashboard.feedback, owner_token=screen.world.owner,
                                 binding=lambda claims: None, dispatcher=dispatcher)
    call = threading.Thread(target=lambda: dispatcher.execute(
        actor.session, "open_ticket", TICKET_ARGUMENTS, idempotency_key="call-held"))
    call.start()
    try:
        for _ in range(1200):  # until the handler runs (held and admitted first: "unknown")
            newest = watching.view(screen.viewer)["actions"][0]
            if newest["status"] == "dispatching":
                break
            handler.go.wait(0.05)
        assert newest["status"] == "dispatching" and newest["hold"] is True
        assert newest["execution_id"] != screen.world.execution_id
        assert screen.dashboard.view(screen.viewer)["actions"][0]["status"] == "unknown"
    finally:
        handler.go.set()
        call.join()
        dispatcher.close()
    assert watching.view(screen.viewer)["actions"][0]["status"] == "acknowledged"


def test_the_owner_sees_every_proposal_with_its_review_and_lifecycle(screen: Screen) -> None:
    view = screen.dashboard.view(screen.owner)
    assert view["proposals"]["count"] == 3
    pending = proposal_of(view, screen.world.pending_id)
    assert pending["review_open"] is True and pending["status"] == "pending_review"
    [source] = pending["sources"]
    assert source["artifact_id"] == "DEC-0001" and "second approver" in source["words"]
    assert pending["lifecycle"]["controls"] == [] and pending["compiled"]["tool"] == "issue_refund"
    active = proposal_of(view, screen.world.active_id)
    assert active["lifecycle"]["state"] == "active"
    assert active["lifecycle"]["controls"] == ["shadow", "suspend", "revoke"]


def test_only_a_diagnostic_qualification_leaves_activation_unavailable_on_the_screen(screen: Screen) -> None:
    profile = proposal_of(screen.dashboard.view(screen.owner), screen.world.diagnostic_id)
    offer = profile["lifecycle"]["activation"]
    assert offer["available"] is False and "diagnostic" in offer["reason"]
    assert [q["verdict"] for q in profile["lifecycle"]["qualifications"]] == ["inconclusive"]


def test_a_non_owner_sees_no_proposals(screen: Screen) -> None:
    proposals = screen.dashboard.view(screen.viewer)["proposals"]
    assert proposals["available"] is False and "owner" in proposals["reason"]


def test_the_owner_approves_through_the_review_path(screen: Screen) -> None:
    done = screen.dashboard.act(screen.owner, {"action": "approve", "target": screen.world.pending_id,
                                               "reason": "matches the policy"})
    assert done["answer"]["status"] == "approved" and done["answer"]["reviewer"] == "Dana"
    lifecycle = screen.lifecycle()
    _, decision = lifecycle.proposals.reviewed(SCOPE, screen.world.pending_id)
    assert decision is not None and decision["decision"] == "approve"
    assert decision["reason"] == "matches the policy"
    review = Engine.open(screen.instance.root).review_state(done["answer"]["review_id"])
    assert review["status"] == "applied"


def test_on_a_read_only_endpoint_the_screen_shows_and_no_action_lands(screen: Screen) -> None:
    assert screen.dashboard.view(screen.owner, read_only=True)["read_only"] is True
    refused = screen.dashboard.act(screen.owner, {"action": "suspend", "target": screen.world.active_id},
                                   read_only=True)
    assert refused["refusal"]["code"] == "read-only"
    assert screen.lifecycle().current(SCOPE, screen.world.active_id)["state"] == "active"  # type: ignore[index]


def test_a_non_owner_action_is_refused_and_changes_nothing(screen: Screen) -> None:
    for form in ({"action": "approve", "target": screen.world.pending_id},
                 {"action": "suspend", "target": screen.world.active_id}):
        refused = screen.dashboard.act(screen.viewer, form)
        assert refused["refusal"]["code"] == "not-owner"
    lifecycle = screen.lifecycle()
    assert lifecycle.proposals.reviewed(SCOPE, screen.world.pending_id)[1] is None
    assert lifecycle.current(SCOPE, screen.world.active_id)["state"] == "active"  # type: ignore[index]


def test_suspend_then_activate_again_under_the_accepted_qualification(screen: Screen) -> None:
    rule = screen.world.active_id
    assert moved(screen, "suspend", rule) == "suspended"
    view = screen.dashboard.view(screen.owner)
    offer = proposal_of(view, rule)["lifecycle"]["activation"]
    assert offer["qualifications"] == [screen.world.qualification_id]
    again = screen.dashboard.act(screen.owner, {"action": "activate", "target": rule,
                                                "qualification": screen.world.qualification_id})
    assert again["answer"]["state"] == "active" and again["answer"]["generation"] == 3


def test_a_posted_activation_on_a_diagnostic_qualification_is_refused(screen: Screen) -> None:
    diag = screen.dashboard.view(screen.owner)
    qid = proposal_of(diag, screen.world.diagnostic_id)["lifecycle"]["qualifications"][0]["qualification_id"]
    refused = screen.dashboard.act(screen.owner, {"action": "activate", "target": screen.world.diagnostic_id,
                                                  "qualification": qid})
    assert refused["refusal"]["code"] == "activation-checks-failed"
    assert screen.lifecycle().current(SCOPE, screen.world.diagnostic_id) is None


def test_shadow_then_rollback_to_the_active_generation(screen: Screen) -> None:
    rule = screen.world.active_id
    assert moved(screen, "shadow", rule) == "shadow"
    assert proposal_of(screen.dashboard.view(screen.owner), rule)["lifecycle"]["rollback_to"] == [1]
    back = screen.dashboard.act(screen.owner, {"action": "rollback", "target": rule, "generation": "1"})
    assert back["answer"]["state"] == "active" and back["answer"]["rolled_back_to"] == 1


def test_revoke_is_final_on_the_dashboard_too(screen: Screen) -> None:
    rule = screen.world.active_id
    assert moved(screen, "revoke", rule) == "revoked"
    again = screen.dashboard.act(screen.owner, {"action": "activate", "target": rule,
                                                "qualification": screen.world.qualification_id})
    assert again["refusal"]["code"] == "rule-revoked"
    assert proposal_of(screen.dashboard.view(screen.owner), rule)["lifecycle"]["controls"] == []


def test_an_action_acts_only_in_the_identitys_own_scope(screen: Screen) -> None:
    elsewhere = screen.identity_in(Scope("desk", "billing"), ["read"])
    refused = screen.dashboard.act(elsewhere, {"action": "approve", "target": screen.world.pending_id})
    assert refused["refusal"]["code"] == "no-proposal"
    assert screen.lifecycle().proposals.reviewed(SCOPE, screen.world.pending_id)[1] is None


def test_each_request_opens_its_own_canonical_memory_in_its_own_thread(screen: Screen) -> None:
    answers: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: answers.append(screen.dashboard.act(
        screen.owner, {"action": "suspend", "target": screen.world.active_id})), name="request-1")
    worker.start()
    worker.join()
    screen.dashboard.view(screen.owner)
    assert answers[0]["answer"]["state"] == "suspended"
    assert screen.opened == ["request-1", threading.current_thread().name]


def test_without_a_memory_factory_proposals_and_actions_are_unavailable(screen: Screen) -> None:
    bare = FeedbackDashboard(FeedbackService(screen.evidence), owner_token=screen.world.owner,
                             binding=lambda claims: None)
    assert "memory_factory" in bare.view(screen.owner)["proposals"]["reason"]
    refused = bare.act(screen.owner, {"action": "approve", "target": screen.world.pending_id})
    assert refused["refusal"]["code"] == "memory-not-bound"


def test_the_binding_decides_who_is_signed_in(screen: Screen) -> None:
    assert screen.dashboard.identify({"sub": "dana"}) == screen.owner
    assert screen.dashboard.identify({"sub": "mallory"}) is None

    def broken(claims: Mapping[str, Any]) -> DashboardIdentity | None:
        raise RuntimeError("directory down")

    for binding in (broken, lambda claims: {"name": "Dana", "owner": True}):
        odd = FeedbackDashboard(FeedbackService(screen.evidence), owner_token=screen.world.owner,
                                binding=binding)  # type: ignore[arg-type]
        assert odd.identify({"sub": "dana"}) is None


def test_a_session_without_the_read_grant_sees_a_refusal(screen: Screen) -> None:
    view = screen.dashboard.view(screen.identity_in(SCOPE, ["report"], name="Eve", owner=False))
    assert view["status"] == "refused" and view["refusal"]["code"] == "not_authorized"
    assert "quality" not in view and "actions" not in view


def test_a_dashboard_needs_the_owner_credential_and_never_shows_it(screen: Screen) -> None:
    with pytest.raises(Refusal) as refused:
        FeedbackDashboard(FeedbackService(screen.evidence), owner_token=screen.world.reader_token,
                          binding=lambda claims: None)
    assert refused.value.code in ("not-owner", "not_owner")
    assert screen.world.owner not in repr(screen.dashboard)
    assert screen.world.owner not in str(screen.dashboard.view(screen.owner))


def test_an_identity_is_named_and_reads_with_a_session(screen: Screen) -> None:
    session = screen.owner.session
    with pytest.raises(Refusal):
        DashboardIdentity("", session)
    with pytest.raises(Refusal):
        DashboardIdentity("Dana", "rva_token")  # type: ignore[arg-type]
    assert DashboardIdentity("Dana", session).scope == SCOPE
