"""set_status: claims, transitions, discard reasons and delivery records, committed."""

from __future__ import annotations

import pytest
import yaml
from revetly_core.writes.claims import Claim, clears_claim, decide_claim
from revetly_core.writes.principal import Principal

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine

BOT = Principal("claude-agent", "machine", False, "REVETLY_ACTOR")


def _front(inst: Instance, rel: str = "backlog/STORY-0001.md") -> dict:  # type: ignore[type-arg]
    text = (inst.root / rel).read_text()
    return yaml.safe_load(text.split("---\n")[1])


def test_same_claimant_keeps_the_start() -> None:
    first = decide_claim(None, "ana", None, "t1")
    again = decide_claim(first.claim, "ana", None, "t2")
    assert again.outcome == "kept" and again.claim.at == "t1"


def test_second_claimant_refused_without_reason() -> None:
    held = Claim("ana", "t1")
    assert decide_claim(held, "bo", None, "t2") == type(decide_claim(held, "bo", None, "t2"))(
        "refused", held)


def test_takeover_with_reason_is_recorded() -> None:
    d = decide_claim(Claim("ana", "t1"), "bo", "ana is on leave", "t2")
    assert d.outcome == "takeover"
    assert d.claim == Claim("bo", "t2", "ana is on leave", "ana")


@pytest.mark.parametrize("status", ["draft", "ready", "done", "parked", "discarded"])
def test_other_transitions_clear(status: str) -> None:
    assert clears_claim(status)
    assert not clears_claim("in-progress")


def test_in_progress_records_claim_in_frontmatter_and_commits(winst: Instance) -> None:
    head = winst.git.head
    out = engine(winst).set_status("STORY-0001", "in-progress")
    assert out["wrote"] is True and out["claim"]["by"] == "Dana Reyes"
    assert _front(winst)["claim"]["by"] == "Dana Reyes"
    commit = winst.git.repo[winst.git.repo.head.target]
    assert str(commit.parents[0].id) == head and "in-progress" in commit.message
    assert commit.author.name == "Dana Reyes"


def test_same_claimant_again_keeps_start(winst: Instance) -> None:
    e = engine(winst)
    first = e.set_status("STORY-0001", "in-progress", claimed_by="claude-agent")
    again = e.set_status("STORY-0001", "in-progress", claimed_by="claude-agent")
    assert again["claim"]["at"] == first["claim"]["at"] and again["wrote"] is False


def test_second_claimant_refused_naming_holder(winst: Instance) -> None:
    e = engine(winst)
    first = e.set_status("STORY-0001", "in-progress", claimed_by="claude-agent")
    head = winst.git.head
    out = e.set_status("STORY-0001", "in-progress", claimed_by="codex-agent")
    assert out["status"] == "refused" and out["wrote"] is False
    assert out["holder"] == "claude-agent" and out["held_since"] == first["claim"]["at"]
    assert out["claim"] == first["claim"]
    assert winst.git.head == head


def test_takeover_with_reason(winst: Instance) -> None:
    e = engine(winst)
    e.set_status("STORY-0001", "in-progress", claimed_by="claude-agent")
    out = e.set_status("STORY-0001", "in-progress", claimed_by="codex-agent",
                       reason="claude-agent stalled for two days")
    assert out["claim"]["taken_over_from"] == "claude-agent"
    assert out["claim_outcome"] == "takeover"
    assert _front(winst)["claim"]["reason"] == "claude-agent stalled for two days"


def test_other_transition_clears_the_claim(winst: Instance) -> None:
    e = engine(winst)
    e.set_status("STORY-0001", "in-progress")
    out = e.set_status("STORY-0001", "parked")
    assert out["claim"] is None and "claim" not in _front(winst)


def test_discard_needs_a_reason(winst: Instance) -> None:
    e = engine(winst)
    with pytest.raises(Refusal) as exc:
        e.set_status("STORY-0001", "discarded")
    assert exc.value.code == "reason-required"
    out = e.set_status("STORY-0001", "discarded", reason="finance dropped it")
    assert out["discard_reason"] == "finance dropped it"
    assert _front(winst)["discard_reason"] == "finance dropped it"
    e.set_status("STORY-0001", "ready")
    assert "discard_reason" not in _front(winst)


def test_unknown_status_is_refused(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).set_status("STORY-0001", "shipped")
    assert "in-progress" in exc.value.fix


def test_done_writes_a_delivery_record(winst: Instance) -> None:
    out = engine(winst).set_status(
        "STORY-0001", "done", verdicts=[{"criterion": 1, "verdict": "met"},
                                        {"criterion": 2, "verdict": "partial", "note": "rounding"}],
        principal=BOT)
    assert out["did"] == "flip+delivery"
    rec = _front(winst, out["delivery"]["path"])
    assert rec["delivers"] == "STORY-0001" and rec["delivered_by"] == "claude-agent"
    assert rec["verdicts"][0]["text"] == "A CSV holds one row per invoice"
    assert rec["verdicts"][1]["note"] == "rounding"
    commit = winst.git.repo[winst.git.repo.head.target]
    assert set(commit.tree["records"]) and _front(winst)["status"] == "done"
    assert _front(winst)["review_log"][-1]["delivery"] == out["delivery"]["artifact_id"]


def test_done_verdicts_by_position(winst: Instance) -> None:
    out = engine(winst).set_status("STORY-0001", "done", verdicts=["met", "not-met"])
    assert [v["verdict"] for v in out["delivery"]["verdicts"]] == ["met", "not-met"]


@pytest.mark.parametrize("verdicts", [None, ["met"], ["met", "great"],
                                      [{"criterion": 3, "verdict": "met"}],
                                      [{"criterion": 1, "verdict": "met"},
                                       {"criterion": 1, "verdict": "met"}]])
def test_done_needs_one_verdict_per_criterion(winst: Instance, verdicts: object) -> None:
    head = winst.git.head
    with pytest.raises(Refusal):
        engine(winst).set_status("STORY-0001", "done", verdicts=verdicts)  # type: ignore[arg-type]
    assert winst.git.head == head
    assert not (winst.root / "records").exists() or not list((winst.root / "records").iterdir())


def test_status_of_unknown_item_refused(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).set_status("STORY-0099", "ready")
    assert exc.value.code == "not-a-live-work-item"


def _held_elsewhere(inst: Instance) -> None:
    """A work item CONTEXT holds from another system (stored as a tracker connector would)."""
    from revetly_core.model import Artifact
    from revetly_core.store.db import Store

    store = Store(inst.root / ".revetly" / "context.db")
    try:
        with store.transaction():
            store.upsert_artifacts([Artifact(
                id="TASK-0500", type="task", title="Rotate the keys", source="github",
                project="acme", status="in-progress", criteria=["Keys rotated"])],
                "2026-01-01T00:00:00+00:00")
    finally:
        store.close()


def test_item_held_elsewhere_ships_as_delivery_only(winst: Instance) -> None:
    _held_elsewhere(winst)
    out = engine(winst).set_status("TASK-0500", "done", verdicts=["met"])
    assert out["did"] == "delivery-only" and out["status"] == "in-progress"
    rec = _front(winst, out["delivery"]["path"])
    assert rec["delivers"] == "TASK-0500" and rec["verdicts"][0]["text"] == "Keys rotated"


def test_item_held_elsewhere_is_not_flipped_here(winst: Instance) -> None:
    _held_elsewhere(winst)
    with pytest.raises(Refusal) as exc:
        engine(winst).set_status("TASK-0500", "ready")
    assert exc.value.code == "not-in-this-store" and "github" in exc.value.detail
