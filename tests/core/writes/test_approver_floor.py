"""Each approver-floor refusal leaves the review pending and names the fix."""

from __future__ import annotations

import pytest
from revetly_core.writes.approver_floor import (
    refuse_machine,
    refuse_self_approval,
    refuse_self_asserted_when_served,
    refuse_service_identity,
)
from revetly_core.writes.gate import GateChoice
from revetly_core.writes.principal import SERVICE_SENTINEL, Principal

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine

ANA_TOKEN = Principal("ana", "person", True, "token")


def _pending(inst: Instance, drafter: Principal | None = None) -> str:
    out = engine(inst).submit_draft("Dunning", "Remind them.", ["Reminder after 7 days"],
                                    gate=GateChoice("app"), drafter=drafter)
    return str(out["review_id"])


def _refused(inst: Instance, rid: str, approver: Principal, rule: str, *, served: bool = False) -> Refusal:
    with pytest.raises(Refusal) as exc:
        engine(inst).resolve_review(rid, "approve", approver=approver, served=served,
                                    decided_via="mcp-app" if served else "cli")
    assert exc.value.code == "approver-floor" and exc.value.extra["rule"] == rule
    assert engine(inst).review_state(rid)["status"] == "pending"
    assert not (inst.root / "backlog" / "STORY-0002.md").exists()
    return exc.value


def test_machine_never_approves(winst: Instance) -> None:
    rid = _pending(winst)
    err = _refused(winst, rid, Principal("ci-runner", "machine", True, "token"), "machine-actor")
    assert "REVETLY_REVIEWER" in err.fix


def test_self_asserted_never_approves_when_served(winst: Instance) -> None:
    rid = _pending(winst)
    _refused(winst, rid, Principal("ana", "person", False, "self-asserted"), "self-asserted",
             served=True)


def test_service_identity_refused_naming_reviewer_env(winst: Instance,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    rid = _pending(winst)
    err = _refused(winst, rid, Principal(SERVICE_SENTINEL, "machine", False, "sentinel"),
                   "service-identity")
    assert "REVETLY_REVIEWER" in err.fix
    monkeypatch.setenv("REVETLY_SERVICE_IDENTITY", "container")
    _refused(winst, rid, Principal("container", "person", False, "git-config"),
             "service-identity")


def test_local_approval_by_baked_in_identity_names_reviewer(
        winst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    rid = _pending(winst)
    monkeypatch.setenv("REVETLY_SERVICE_IDENTITY", "Dana Reyes")
    with pytest.raises(Refusal) as exc:
        engine(winst).resolve_review(rid, "approve")
    assert "REVETLY_REVIEWER" in exc.value.fix
    monkeypatch.setenv("REVETLY_REVIEWER", "Ana Person")
    assert engine(winst).resolve_review(rid, "approve")["status"] == "applied"


def test_verified_principal_does_not_approve_own_draft(winst: Instance) -> None:
    rid = _pending(winst, drafter=ANA_TOKEN)
    err = _refused(winst, rid, ANA_TOKEN, "self-approval", served=True)
    assert "approver_may_draft" in err.fix


def test_approver_may_draft_lets_them(winst: Instance) -> None:
    toml = winst.root / "revetly.toml"
    toml.write_text(toml.read_text() + "\n[auth]\napprover_may_draft = true\n")
    rid = _pending(winst, drafter=ANA_TOKEN)
    out = engine(winst).resolve_review(rid, "approve", approver=ANA_TOKEN, served=True,
                                       decided_via="mcp-app")
    assert out["status"] == "applied"


def test_reject_is_not_floored(winst: Instance) -> None:
    rid = _pending(winst)
    out = engine(winst).resolve_review(rid, "reject", "no",
                                       approver=Principal("ci", "machine", False, "x"))
    assert out["status"] == "resolved"


def test_each_rule_alone() -> None:
    person = Principal("ana", "person", True, "token")
    refuse_machine(person)
    refuse_self_asserted_when_served(person, served=True)
    refuse_self_asserted_when_served(Principal("x", "person", False, "git-config"), served=False)
    refuse_service_identity(person, {})
    refuse_self_approval(person, Principal("bo", "person", True, "token"), may_draft=False)
    refuse_self_approval(person, person, may_draft=True)
    with pytest.raises(Refusal):
        refuse_self_approval(person, person, may_draft=False)
