"""kill -9 at the write-back's durable steps: the write is finished once by the next call, or
never happened; no delivery twice, no note twice, nothing left uncommitted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest
from revetly_core.writes.crash import CRASH_EXIT

from revetly_core import Engine
from tests.core.writeback.conftest import DONE_VERDICTS, delivery_files
from tests.support.fake_github import FakeGitHub

CLAIM_MARKER = "<!-- revetly:claim GH-1 -->"
WORKER = """
import json, sys
from revetly_core import Engine
engine = Engine.open(sys.argv[1])
engine.capture_mode = "none"
args = json.loads(sys.argv[2])
engine.set_status("GH-1", args["status"], claimed_by=args.get("by"), verdicts=args.get("v"))
"""


def _killed_at(root: Path, point: str, status: str, **args: object) -> int:
    """Run set_status in a child process armed to die at ``point``: its exit status."""
    import json

    env = {**os.environ, "REVETLY_CRASH_AT": point}
    done = subprocess.run([sys.executable, "-c", WORKER, str(root),
                           json.dumps({"status": status, **args})], env=env, timeout=120,
                          capture_output=True, text=True, check=False)
    return done.returncode


def _clean(root: Path) -> bool:
    """Nothing uncommitted but the revetly.toml the fixture appended to."""
    repo = pygit2.Repository(str(root))
    return not {p: f for p, f in repo.status().items()
                if f != pygit2.GIT_STATUS_IGNORED and p != "revetly.toml"}


def _marked(fake: FakeGitHub, marker: str) -> list[dict[str, object]]:
    return [c for c in fake.comments_on(1) if marker in str(c["body"])]


@pytest.mark.parametrize("point", ["writeback-recorded", "files-written", "intent-cleared",
                                   "writeback-step-landed"])
def test_a_ship_killed_anywhere_lands_once_on_the_next_call(
        gh: tuple[Engine, FakeGitHub], point: str) -> None:
    engine, fake = gh
    assert _killed_at(engine.root, point, "done", v=DONE_VERDICTS) == CRASH_EXIT
    out = engine.set_status("GH-1", "done", verdicts=DONE_VERDICTS)
    did = out["delivery"]["artifact_id"]
    assert delivery_files(engine) == [f"{did}.md"]
    assert out["writeback"]["not_landed"] == [] and fake.items[1]["state"] == "closed"
    assert len(_marked(fake, f"<!-- revetly:delivery {did} -->")) == 1
    assert _clean(engine.root)
    assert not list((engine.root / ".revetly" / "intents").glob("*.json"))


@pytest.mark.parametrize("point", ["writeback-recorded", "writeback-step-landed"])
def test_a_claim_killed_midway_is_finished_by_the_same_claimant(
        gh: tuple[Engine, FakeGitHub], point: str) -> None:
    engine, fake = gh
    assert _killed_at(engine.root, point, "in-progress", by="agent-7") == CRASH_EXIT
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")
    assert out["claim"]["by"] == "agent-7" and out["writeback"]["not_landed"] == []
    assert len(_marked(fake, CLAIM_MARKER)) == 1 and "in-progress" in fake.label_names(1)


def test_a_ship_recovery_finished_carries_its_note_into_the_next_status(
        gh: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = gh
    assert _killed_at(engine.root, "files-written", "done", v=DONE_VERDICTS) == CRASH_EXIT
    out = engine.set_status("GH-1", "in-progress", claimed_by="agent-7")  # recovery first
    assert out["recovered"][0]["outcome"] == "completed"
    assert delivery_files(engine) == ["DEL-0001.md"]
    assert len(_marked(fake, "<!-- revetly:delivery DEL-0001 -->")) == 1
    assert fake.items[1]["state"] == "open" and "in-progress" in fake.label_names(1)
    assert _clean(engine.root)
