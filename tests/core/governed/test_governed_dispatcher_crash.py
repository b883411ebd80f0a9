"""Crash injection: the dispatcher's process killed at each point between admission and acknowledgement.

Each case runs tests/support/guarded_app.py in a real subprocess with REVETLY_CRASH_AT armed, so
the process ends as abruptly as kill -9 (os._exit: no finally, no flush). A second process then
retries with the same key and with a new key. The backend's journal file counts real effects:
nothing is ever replayed, and wherever the handler may have run the hold stands.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from revetly_core.governed.feedback import FeedbackService
from revetly_core.governed.home import write_private_file
from revetly_core.writes.crash import CRASH_EXIT, ENV_CRASH_AT

from revetly_core import EvidenceService, GuardedDispatcher, Scope

APP = Path(__file__).resolve().parents[2] / "support" / "guarded_app.py"
SCOPE = Scope("writer", "project")


@pytest.fixture()
def home(tmp_path: Path) -> list[str]:
    """A home on the real clock, its owner credential in ROOT/owner.token and an application
    credential granted execute and read; the app's argv prefix is returned."""
    root = tmp_path / "homes"
    evidence, owner = EvidenceService.create(root, "vault")
    principal, token = evidence.principals.issue_credential(owner, "app")
    evidence.principals.grant(owner, principal, ["execute", "read"], SCOPE,
                              datetime.now(UTC) + timedelta(days=1))
    evidence.close()
    write_private_file(root / "owner.token", owner.encode())
    write_private_file(tmp_path / "app.token", token.encode())
    return [str(root), "vault", str(tmp_path / "app.token"), "writer", "project",
            str(tmp_path / "journal.jsonl")]


def _run(home: list[str], key: str, text: str = "hello",
         crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_CRASH_AT}
    if crash_at:
        env[ENV_CRASH_AT] = crash_at
    return subprocess.run([sys.executable, str(APP), *home, "execute", key, text], env=env,
                          capture_output=True, text=True, timeout=120)


def _answer(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _effects(home: list[str]) -> list[dict[str, Any]]:
    journal = Path(home[5])
    return [json.loads(x) for x in journal.read_text().splitlines()] if journal.exists() else []


def _state(home: list[str], execution_id: str) -> dict[str, Any]:
    evidence = EvidenceService.open(home[0], "vault")
    try:
        return GuardedDispatcher(FeedbackService(evidence)).state(SCOPE, execution_id)
    finally:
        evidence.close()


@pytest.mark.parametrize(("point", "effects"),
                         [("guarded-admitted", 0), ("guarded-held", 0), ("guarded-returned", 1)])
def test_a_kill_after_the_hold_leaves_it_standing_and_nothing_replays(home: list[str], point: str,
                                                                       effects: int) -> None:
    killed = _run(home, "k1", crash_at=point)
    assert killed.returncode == CRASH_EXIT, killed.stderr
    assert len(_effects(home)) == effects
    retry = _answer(_run(home, "k1"))
    assert retry["replayed"] is True
    fresh = _answer(_run(home, "k2"))
    assert fresh["refusal"]["code"] == "execution_held"
    assert fresh["refusal"]["held_by"] == retry["execution_id"]
    assert len(_effects(home)) == effects
    state = _state(home, retry["execution_id"])
    assert state["status"] == "unknown" and state["hold"] is True


def test_a_kill_inside_the_admission_batch_retains_nothing_and_dispatches_nothing(home: list[str]) -> None:
    """Admission and hold are one batched append (ADR 0035): a kill before it commits leaves
    neither, so the same key later admits afresh and dispatches exactly once."""
    killed = _run(home, "k1", crash_at="guarded-admitting")
    assert killed.returncode == CRASH_EXIT, killed.stderr
    assert _effects(home) == []
    retry = _answer(_run(home, "k1"))
    assert retry["status"] == "acknowledged" and "replayed" not in retry
    assert len(_effects(home)) == 1
    assert _answer(_run(home, "k2"))["status"] == "acknowledged"  # that execution held nothing after
    assert len(_effects(home)) == 2


def test_a_server_killed_mid_dispatch_leaves_the_hold_for_the_next_process(home: list[str]) -> None:
    proc = subprocess.Popen([sys.executable, str(APP), *home, "execute", "k1", "hang"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not _effects(home):
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    fresh = _answer(_run(home, "k2"))
    assert fresh["refusal"]["code"] == "execution_held"
    assert _state(home, fresh["refusal"]["held_by"])["status"] == "unknown"
    assert len(_effects(home)) == 1
