"""The write commands as a person runs them: real subprocesses on a real git instance."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest

STORY = """---
id: STORY-0001
title: "Export invoices as CSV"
type: story
status: ready
---

Finance wants a CSV of every invoice.

## Acceptance criteria

- A CSV holds one row per invoice
- Amounts keep two decimals
"""


def revetly(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "REVETLY_ACTOR": "Dana Reyes", **(env or {})}
    full.pop("REVETLY_INSTANCE", None)
    return subprocess.run([sys.executable, "-m", "revetly_cli", *args], capture_output=True,
                          text=True, env=full, timeout=120)


@pytest.fixture()
def inst(tmp_path: Path) -> Path:
    root = tmp_path / "inst"
    assert revetly("init", str(root)).returncode == 0
    (root / "backlog" / "STORY-0001.md").write_text(STORY)
    repo = pygit2.Repository(str(root))
    repo.index.add_all()
    repo.index.write()
    sig = pygit2.Signature("Dana", "dana@example.com", 1_735_000_000, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]
    repo.create_commit("HEAD", sig, sig, "seed", repo.index.write_tree(), parents)
    assert revetly("sync", "--instance", str(root)).returncode == 0
    return root


def _pending(root: Path) -> str:
    from revetly_core.writes.gate import GateChoice

    from revetly_core import Engine

    e = Engine.open(root)
    e.capture_mode = "none"
    out = e.submit_draft("Dunning reminders", "Remind customers.", ["After 7 days"],
                         gate=GateChoice("parked", {}))
    return str(out["review_id"])


def test_review_list_show_approve(inst: Path) -> None:
    rid = _pending(inst)
    listed = json.loads(revetly("review", "list", "--instance", str(inst), "--json").stdout)
    assert [r["review_id"] for r in listed["reviews"]] == [rid]
    shown = revetly("review", "show", rid, "--instance", str(inst))
    assert shown.returncode == 0 and "Dunning reminders" in shown.stdout
    done = revetly("review", "approve", rid, "--instance", str(inst), "--json",
                   env={"REVETLY_REVIEWER": "Ana Person"})
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["decided_via"] == "cli" and payload["decision_gate_enforced"] is True
    assert payload["decided_by"]["name"] == "Ana Person"
    assert (inst / "backlog" / "STORY-0002.md").is_file()
    capture = payload["capture"]
    for _ in range(600):  # the detached pass outlives the command that filed it
        state = json.loads(revetly("status", "--instance", str(inst), "--capture", capture,
                                   "--json").stdout)["capture"]["state"]
        if state != "pending":
            break
        time.sleep(0.2)
    assert state == "landed"


def test_review_reject_and_withdraw(inst: Path) -> None:
    a, b = _pending(inst), _pending(inst)
    rej = json.loads(revetly("review", "reject", a, "--reason", "vague", "--instance", str(inst),
                             "--json").stdout)
    assert rej["status"] == "resolved" and rej["reason"] == "vague"
    wd = revetly("review", "withdraw", b, "--instance", str(inst))
    assert wd.returncode == 0 and "withdrawn" in wd.stdout


def test_machine_reviewer_refused_exit_2(inst: Path) -> None:
    rid = _pending(inst)
    out = revetly("review", "approve", rid, "--instance", str(inst),
                  env={"REVETLY_REVIEWER": "github-actions[bot]"})
    assert out.returncode == 2 and "machine" in out.stderr and "Traceback" not in out.stderr


def test_bad_review_id_is_not_on_record(inst: Path) -> None:
    out = revetly("review", "show", "../../etc/passwd", "--instance", str(inst))
    assert out.returncode == 2 and "not on record" in out.stderr


def test_status_set_claim_and_second_claimant(inst: Path) -> None:
    first = revetly("status-set", "STORY-0001", "in-progress", "--claimed-by", "claude-agent",
                    "--instance", str(inst), "--json")
    assert first.returncode == 0, first.stderr
    second = revetly("status-set", "STORY-0001", "in-progress", "--claimed-by", "codex",
                     "--instance", str(inst), "--json")
    assert second.returncode == 2
    assert json.loads(second.stdout)["holder"] == "claude-agent"
    done = revetly("status-set", "STORY-0001", "done", "--verdict", "met", "--verdict",
                   "partial", "--instance", str(inst))
    assert done.returncode == 0, done.stderr
    assert "delivery record DEL-0001" in done.stdout


def test_decide_and_note(inst: Path) -> None:
    note = json.loads(revetly("note", "Standup", "--body", "We met.", "--instance", str(inst),
                              "--json").stdout)
    assert note["conversation"]["artifact_id"] == "CONV-0001"
    dec = revetly("decide", "Two decimals everywhere", "--body", "Rounding is banker's.",
                  "--revises", "STORY-0001:2", "--related", "STORY-0001", "--instance",
                  str(inst), "--json")
    assert dec.returncode == 0, dec.stderr
    payload = json.loads(dec.stdout)
    assert payload["decisions"][0]["revises"][0]["criteria"] == [2]
    bad = revetly("decide", "x", "--body", "y", "--revises", "STORY-0001:9", "--instance",
                  str(inst))
    assert bad.returncode == 2 and "has 2 acceptance criteria" in bad.stderr


def test_check_repair_via_cli(inst: Path) -> None:
    doubled = STORY + "\n## Acceptance criteria\n\n- Only this one\n"
    (inst / "backlog" / "STORY-0001.md").write_text(doubled)
    assert revetly("check", "--instance", str(inst)).returncode == 1
    fixed = revetly("check", "--repair", "--instance", str(inst), "--json")
    assert fixed.returncode == 0, fixed.stdout
    assert json.loads(fixed.stdout)["repair"]["repaired"] == [{"path": "backlog/STORY-0001.md"}]


def test_a_killed_status_set_is_finished_by_the_next_command_which_says_so(inst: Path) -> None:
    killed = revetly("status-set", "STORY-0001", "parked", "--instance", str(inst),
                     env={"REVETLY_CRASH_AT": "files-written"})
    assert killed.returncode == 86  # died at the armed crash point, before its commit
    again = revetly("status-set", "STORY-0001", "parked", "--instance", str(inst))
    assert again.returncode == 0, again.stderr
    assert "recovered an interrupted status-set write" in again.stdout
    assert "completed" in again.stdout
    repo = pygit2.Repository(str(inst))
    flips = [c for c in repo.walk(repo.head.target) if "-> parked" in c.message]
    assert len(flips) == 1  # finished once by recovery; the retry found it done
    synced = json.loads(revetly("sync", "--instance", str(inst), "--json").stdout)
    assert "recovered" not in synced
