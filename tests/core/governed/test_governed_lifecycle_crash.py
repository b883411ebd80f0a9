"""Crash injection: proposals, reviews, qualification and activation killed at each crash point.

Each case runs tests/support/proposals_app.py in a real subprocess with REVETLY_CRASH_AT armed (the
process ends as abruptly as kill -9), then retries the same operation in a fresh process. The
vault and the engine's review store are then checked: nothing is half-kept, nothing runs twice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from revetly_core.governed.home import write_private_file
from revetly_core.governed.lifecycle import LIFECYCLE
from revetly_core.writes.crash import CRASH_EXIT, ENV_CRASH_AT
from revetly_core.writes.reviews import ReviewStore

from revetly_core import Engine, EvidenceService
from tests.core.gitrepo import Instance
from tests.core.governed.proposal_world import seed_instance

APP = Path(__file__).resolve().parents[2] / "support" / "proposals_app.py"
SCOPE_PARTITION = "scope:support/desk#"
EXPIRES = (datetime.now(UTC) + timedelta(days=7)).replace(microsecond=0).isoformat()


@pytest.fixture()
def world(instance: Instance, tmp_path: Path) -> list[str]:
    """A seeded instance, a home on the real clock, and both credentials in WORK."""
    from revetly_core import Scope

    seed_instance(instance)
    homes, work = tmp_path / "homes", tmp_path / "work"
    work.mkdir()
    evidence, owner = EvidenceService.create(homes, "vault")
    principal, token = evidence.principals.issue_credential(owner, "desk agent")
    evidence.principals.grant(owner, principal, ["propose"], Scope("desk", "support"),
                              datetime.now(UTC) + timedelta(days=1))
    evidence.close()
    write_private_file(work / "owner.token", owner.encode())
    write_private_file(work / "app.token", token.encode())
    return [str(instance.root), str(homes), "vault", str(work)]


def run(world: list[str], *args: str, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_CRASH_AT}
    if crash_at:
        env[ENV_CRASH_AT] = crash_at
    return subprocess.run([sys.executable, str(APP), *world, *args], env=env, capture_output=True,
                          text=True, timeout=120)


def answer(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    assert "refusal" not in out, out
    return out


def records(world: list[str], kind: str, prefix: str) -> list[dict[str, Any]]:
    evidence = EvidenceService.open(world[1], "vault")
    try:
        return [r for _, r in evidence.records(SCOPE_PARTITION + kind, prefix)]
    finally:
        evidence.close()


def review_status(world: list[str], review_id: str) -> str:
    engine = Engine.open(world[0])
    return ReviewStore(engine.root, engine.paths.state).load(review_id).status


def test_a_kill_after_the_proposal_is_kept_is_finished_by_the_retry(world: list[str]) -> None:
    assert run(world, "propose", "p-1", crash_at="proposal-recorded").returncode == CRASH_EXIT
    kept = records(world, "proposals", "prop-")
    assert len(kept) == 1
    with pytest.raises(Exception, match="not on record"):
        review_status(world, kept[0]["review_id"])
    receipt = answer(run(world, "propose", "p-1"))
    assert receipt["proposal_id"] == kept[0]["proposal_id"]
    assert review_status(world, receipt["review_id"]) == "pending"
    assert len(records(world, "proposals", "prop-")) == 1


def test_a_kill_after_the_decision_is_kept_is_finished_by_the_retry(world: list[str]) -> None:
    receipt = answer(run(world, "propose", "p-1"))
    assert run(world, "review", receipt["proposal_id"], crash_at="proposal-reviewed").returncode == CRASH_EXIT
    assert review_status(world, receipt["review_id"]) == "pending"
    assert answer(run(world, "review", receipt["proposal_id"]))["status"] == "approved"
    assert review_status(world, receipt["review_id"]) == "applied"
    assert len(records(world, "proposals", "review:")) == 1


def test_a_kill_after_the_attempt_is_charged_is_never_run_again(world: list[str]) -> None:
    receipt = answer(run(world, "propose", "p-1"))
    answer(run(world, "review", receipt["proposal_id"]))
    killed = run(world, "qualify", receipt["proposal_id"], "q-1", EXPIRES, crash_at="qualification-reserved")
    assert killed.returncode == CRASH_EXIT
    retry = answer(run(world, "qualify", receipt["proposal_id"], "q-1", EXPIRES))
    assert retry["status"] == "unknown" and retry["charged"] and retry["attempts_charged"] == 1
    assert not (Path(world[3]) / "qualifier.log").exists()


@pytest.mark.parametrize("point", ["activation-checked", "activation-appended"])
def test_a_killed_activation_leaves_one_generation_or_none_and_the_retry_settles_it(
        world: list[str], point: str) -> None:
    receipt = answer(run(world, "propose", "p-1"))
    answer(run(world, "review", receipt["proposal_id"]))
    qualified = answer(run(world, "qualify", receipt["proposal_id"], "q-1", EXPIRES))
    qualification_id = qualified["qualification"]["qualification_id"]
    killed = run(world, "activate", receipt["proposal_id"], qualification_id, crash_at=point)
    assert killed.returncode == CRASH_EXIT
    kept = records(world, LIFECYCLE, "gen:")
    assert len(kept) == (0 if point == "activation-checked" else 1)
    settled = answer(run(world, "activate", receipt["proposal_id"], qualification_id))
    assert settled["generation"] == 1 and settled["state"] == "active"
    assert settled.get("replayed", False) is (point == "activation-appended")
    assert len(records(world, LIFECYCLE, "gen:")) == 1
