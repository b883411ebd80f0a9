"""Intents and recovery: roll-back when something moved, stale and live locks, failures undone,
unreadable intents set aside, interrupted writes named by check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from revetly_core.writes import git_commit, journal
from revetly_core.writes.crash import CRASH_EXIT, ENV_CRASH_AT

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine


def _env(point: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REVETLY_INSTANCE", None)
    env["REVETLY_ACTOR"] = "Dana Reyes"
    if point:
        env[ENV_CRASH_AT] = point
    return env


KILLED_WRITE = textwrap.dedent("""
    import sys
    from revetly_core import Engine
    e = Engine.open(sys.argv[1])
    e.capture_mode = "none"
    e.set_status("STORY-0001", "parked")
""")


def _kill_status_write(winst: Instance, tmp_path: Path, point: str) -> None:
    script = tmp_path / "killed.py"
    script.write_text(KILLED_WRITE)
    p = subprocess.run([sys.executable, str(script), str(winst.root)], env=_env(point),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == CRASH_EXIT, p.stderr


def _intents(winst: Instance) -> list[str]:
    folder = winst.root / ".revetly" / "intents"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_an_interrupted_write_is_rolled_back_when_its_file_moved_under_it(
        winst: Instance, tmp_path: Path) -> None:
    _kill_status_write(winst, tmp_path, "files-written")
    story = winst.root / "backlog" / "STORY-0001.md"
    theirs = story.read_text().replace("Export invoices as CSV", "Export invoices (edited)")
    winst.git.write_and_commit({"backlog/STORY-0001.md": theirs}, "a person's own edit")
    head = winst.git.head
    out = engine(winst).sync()
    [report] = out["recovered"]
    assert report["outcome"] == "rolled-back" and report["kind"] == "status-set"
    assert winst.git.head == head  # nothing committed on top of their edit
    assert story.read_text() == theirs and _intents(winst) == []


def test_the_next_write_finishes_an_interrupted_one_and_says_so(
        winst: Instance, tmp_path: Path) -> None:
    _kill_status_write(winst, tmp_path, "first-file-written")
    out = engine(winst).record_conversation("Next", "The next write.")
    assert [r["outcome"] for r in out["recovered"]] == ["completed"]
    repo = winst.git.repo
    head = repo[repo.head.target]
    assert head.message.startswith("CONV-") and "-> parked" in head.parents[0].message
    assert _intents(winst) == []


def test_check_names_an_interrupted_write_until_sync_settles_it(
        winst: Instance, tmp_path: Path) -> None:
    _kill_status_write(winst, tmp_path, "intent-recorded")
    found = engine(winst).check()
    assert not found["ok"]
    assert [p["code"] for p in found["problems"]] == ["unfinished-write"]
    engine(winst).sync()
    assert engine(winst).check()["ok"]


def test_a_git_lock_no_dead_write_explains_is_a_refusal_naming_it(winst: Instance) -> None:
    lock = winst.root / ".git" / "index.lock"
    lock.write_text("")
    head = winst.git.head
    with pytest.raises(Refusal) as exc:
        engine(winst).set_status("STORY-0001", "parked")
    assert exc.value.code == "git-locked" and exc.value.extra["lock"] == ".git/index.lock"
    assert exc.value.extra["wrote"] is False
    assert winst.git.head == head and lock.exists()


HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from revetly_core.writes.git_commit import held_write_lock
    with held_write_lock(Path(sys.argv[1]), "status-set"):
        print("held", flush=True)
        sys.stdin.readline()
""")


def test_a_write_lock_held_by_a_live_process_is_a_refusal_naming_it(
        winst: Instance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    p = subprocess.Popen([sys.executable, str(script), str(winst.root / ".revetly")],
                         env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "held"
        monkeypatch.setattr(git_commit, "LOCK_TIMEOUT_S", 0.2)
        with pytest.raises(Refusal) as exc:
            engine(winst).set_status("STORY-0001", "parked")
        assert exc.value.code == "busy"
        assert exc.value.extra["holder"]["pid"] == p.pid
        assert str(p.pid) in exc.value.detail and "status-set" in exc.value.detail
    finally:
        p.communicate("\n", timeout=60)


def test_the_lock_of_a_killed_writer_does_not_outlive_it(winst: Instance,
                                                        tmp_path: Path) -> None:
    _kill_status_write(winst, tmp_path, "files-written")  # died holding the write lock
    out = engine(winst).set_status("STORY-0001", "ready")  # not refused: the lock died with it
    assert out["recovered"][0]["outcome"] == "completed"
    assert out["previous_status"] == "parked" and out["wrote"] is True


def test_a_failed_commit_puts_the_files_back_and_clears_its_intent(
        winst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    story = winst.root / "backlog" / "STORY-0001.md"
    before = story.read_bytes()

    def refuse(*args: object, **kwargs: object) -> str:
        raise OSError("disk full")

    monkeypatch.setattr(journal, "commit_bytes", refuse)
    with pytest.raises(OSError):
        engine(winst).set_status("STORY-0001", "parked")
    assert story.read_bytes() == before and _intents(winst) == []
    assert not winst.git.repo.status()


def test_an_unreadable_intent_is_set_aside_not_applied(winst: Instance) -> None:
    folder = winst.root / ".revetly" / "intents"
    folder.mkdir(parents=True)
    (folder / "INT-0000000000000-deadbeef.json").write_text("{not json")
    out = engine(winst).set_status("STORY-0001", "parked")
    assert out["recovered"][0]["outcome"] == "set-aside"
    assert (folder / "INT-0000000000000-deadbeef.unreadable").exists()


def test_an_intent_round_trips_its_bytes() -> None:
    intent = journal.new_intent("note")
    intent.after = {"notes/CONV-0001.md": b"\x00binary\xff"}
    intent.before = {"notes/CONV-0001.md": None}
    again = journal.Intent.from_json(json.loads(json.dumps(intent.to_json())))
    assert again == intent


REVIEW_HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from revetly_core.writes.reviews import ReviewStore
    root = Path(sys.argv[1])
    with ReviewStore(root, root / ".revetly").locked(sys.argv[2]):
        print("held", flush=True)
        sys.stdin.readline()
""")


def test_a_review_answered_elsewhere_too_long_is_a_busy_refusal(
        winst: Instance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from revetly_core.writes import reviews

    rid = engine(winst).submit_draft("Dunning", "Remind.", ["After 7 days"])["review_id"]
    script = tmp_path / "review_holder.py"
    script.write_text(REVIEW_HOLDER)
    p = subprocess.Popen([sys.executable, str(script), str(winst.root), rid], env=_env(),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "held"
        monkeypatch.setattr(reviews, "REVIEW_LOCK_TIMEOUT_S", 0.2)
        with pytest.raises(Refusal) as exc:
            engine(winst).resolve_review(rid, "reject", "no")
        assert exc.value.code == "busy" and exc.value.extra["review_id"] == rid
    finally:
        p.communicate("\n", timeout=60)
    assert engine(winst).review_state(rid)["status"] == "pending"
