"""Reliability: concurrent writers, killed processes, torn files, hostile ids, oversized bodies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from revetly_core.writes.files import atomic_write
from revetly_core.writes.gate import GateChoice
from revetly_core.writes.limits import MAX_BODY_CHARS, MAX_ID_CHARS

from revetly_core import Refusal
from tests.core.gitrepo import Instance
from tests.core.writes.write_engine import engine

WRITER = textwrap.dedent("""
    import sys
    from revetly_core import Engine
    root, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    e = Engine.open(root)
    e.capture_mode = "none"
    wrote = 0
    for i in range(n):
        if i % 5 == 4:
            out = e.set_status("STORY-0001", "in-progress" if i % 2 else "ready",
                               claimed_by=tag, reason=f"turn {i} of {tag}")
        else:
            out = e.record_conversation(f"{tag} note {i}", f"Body {i} from {tag}.")
        wrote += bool(out["wrote"])
    print(wrote)
""")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REVETLY_INSTANCE", None)
    env["REVETLY_ACTOR"] = "Dana Reyes"
    return env


def test_two_processes_fifty_writes_each_lose_none(winst: Instance, tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    start = winst.git.head
    procs = [subprocess.Popen([sys.executable, str(script), str(winst.root), tag, "50"],
                              env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for tag in ("alpha", "beta")]
    wrote = 0
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        wrote += int(out.strip())
    repo = winst.git.repo
    chain = []
    commit = repo[repo.head.target]
    while str(commit.id) != start:
        assert len(commit.parents) == 1  # linear: no merge, no fork
        chain.append(commit)
        commit = commit.parents[0]
    assert len(chain) == wrote >= 80  # one commit per write that changed something
    notes = sorted((winst.root / "notes").glob("CONV-*.md"))
    assert len(notes) == 80
    titles = {yaml_title(p) for p in notes}
    assert titles == {f"{t} note {i}" for t in ("alpha", "beta") for i in range(50) if i % 5 != 4}
    head_tree = repo[repo.head.target].tree
    assert len(list(head_tree["notes"])) == 81  # every note committed (plus DEC-0001)
    assert not repo.status()  # nothing left uncommitted


def yaml_title(path: Path) -> str:
    import yaml

    return str(yaml.safe_load(path.read_text().split("---\n")[1])["title"])


KILLED = textwrap.dedent("""
    import os, signal, sys
    from revetly_core import Engine
    from revetly_core.writes.gate import GateChoice
    e = Engine.open(sys.argv[1])
    out = e.submit_draft("Dunning", "Remind them.", ["After 7 days"], gate=GateChoice("app"))
    print(out["review_id"], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_killed_after_recording_leaves_a_pending_review_another_answers(
        winst: Instance, tmp_path: Path) -> None:
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    p = subprocess.run([sys.executable, str(script), str(winst.root)], env=_env(),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == -signal.SIGKILL
    rid = p.stdout.strip()
    e = engine(winst)
    assert e.list_reviews()["reviews"][0]["review_id"] == rid
    done = e.resolve_review(rid, "approve")
    assert done["status"] == "applied" and (winst.root / done["path"]).is_file()


HAMMER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from revetly_core.writes.files import atomic_write
    path = Path(sys.argv[1])
    i = 0
    print("go", flush=True)
    while True:
        atomic_write(path, ('{"n": %d, "pad": "%s"}' % (i, "x" * 400_000)).encode())
        i += 1
""")


def test_killed_mid_write_never_leaves_a_half_written_file(tmp_path: Path) -> None:
    target = tmp_path / "state" / "REV-0123456789abcdef.json"
    atomic_write(target, b'{"n": -1, "pad": ""}')
    script = tmp_path / "hammer.py"
    script.write_text(HAMMER)
    for _ in range(3):
        p = subprocess.Popen([sys.executable, str(script), str(target)], stdout=subprocess.PIPE,
                             text=True)
        assert p.stdout is not None and p.stdout.readline().strip() == "go"
        p.send_signal(signal.SIGKILL)
        p.wait()
        data = json.loads(target.read_bytes())  # whole: old or new, never torn
        assert data["pad"] in ("", "x" * 400_000)


def test_failed_write_keeps_the_old_file_and_no_temp(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.json"
    atomic_write(target, b"old")

    def boom(fd: int) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


HOSTILE = ["../STORY-0001", "STORY-0001/../../x", "backlog/STORY-0001", "STORY\\0001",
           "STORY-0001\x00", "STORY-" + "1" * (MAX_ID_CHARS + 5), "..", "", "STORY"]


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_ids_refused_before_any_path(winst: Instance, bad: str) -> None:
    e = engine(winst)
    head = winst.git.head
    calls = [
        lambda: e.set_status(bad, "ready"),
        lambda: e.submit_revision(bad, "d", ["c"], gate=GateChoice("app")),
        lambda: e.submit_draft("t", "d", ["c"], parent=bad, gate=GateChoice("app")),
        lambda: e.record_conversation("t", "b", related_ids=[bad]),
        lambda: e.record_conversation("t", "b", decisions=[{"decision": "d", "supersedes": [bad]}]),
        lambda: e.record_conversation("t", "b", decisions=[{"decision": "d", "revises": [bad]}]),
    ]
    for call in calls:
        with pytest.raises(Refusal) as exc:
            call()
        assert exc.value.code == "bad-id"
    assert winst.git.head == head
    assert e.list_reviews("all")["count"] == 0


@pytest.mark.parametrize("field", ["description", "body", "reason"])
def test_oversized_bodies_refused_naming_the_limit(winst: Instance, field: str) -> None:
    e = engine(winst)
    big = "x" * (MAX_BODY_CHARS + 1)
    with pytest.raises(Refusal) as exc:
        if field == "description":
            e.submit_draft("t", big, ["c"], gate=GateChoice("app"))
        elif field == "body":
            e.record_conversation("t", big)
        else:
            e.set_status("STORY-0001", "discarded", reason=big)
    assert exc.value.code == "too-large"
    assert exc.value.extra["limit"] == MAX_BODY_CHARS
    assert str(MAX_BODY_CHARS) in exc.value.detail


def test_too_many_criteria_refused(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).submit_draft("t", "d", ["c"] * 101, gate=GateChoice("app"))
    assert exc.value.code == "too-large" and exc.value.extra["limit"] == 100


def test_a_write_that_fails_before_its_commit_leaves_nothing(tmp_path: Path) -> None:
    from revetly_core.writes.journal import write_lock

    existing = tmp_path / "notes" / "DEC-0001.md"
    existing.parent.mkdir()
    existing.write_text("old")
    with pytest.raises(RuntimeError), write_lock(tmp_path / ".revetly") as batch:
        batch.write(existing, b"new")
        batch.write(tmp_path / "notes" / "CONV-0001.md", b"fresh")
        raise RuntimeError("the commit failed")
    assert existing.read_text() == "old"
    assert sorted(p.name for p in existing.parent.iterdir()) == ["DEC-0001.md"]


APPROVER = textwrap.dedent("""
    import sys
    from revetly_core import Engine
    e = Engine.open(sys.argv[1])
    e.capture_mode = "none"
    out = e.resolve_review(sys.argv[2], "approve")
    print(out["answered_now"], out["status"])
""")


def test_two_processes_approving_one_review_apply_it_once(winst: Instance, tmp_path: Path) -> None:
    rid = engine(winst).submit_draft("Dunning", "Remind.", ["After 7 days"],
                                     gate=GateChoice("app"))["review_id"]
    script = tmp_path / "approver.py"
    script.write_text(APPROVER)
    env = {**_env(), "REVETLY_REVIEWER": "Ana Person"}
    procs = [subprocess.Popen([sys.executable, str(script), str(winst.root), rid], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    answers = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        answers.append(out.split())
    assert sorted(answers) == [["False", "applied"], ["True", "applied"]]
    assert sorted(p.name for p in (winst.root / "backlog").glob("STORY-*.md")) == [
        "STORY-0001.md", "STORY-0002.md"]


def test_refusals_of_writes_say_nothing_was_written(winst: Instance) -> None:
    with pytest.raises(Refusal) as exc:
        engine(winst).set_status("STORY-0001", "shipped")
    assert exc.value.payload()["refusal"]["wrote"] is False
    with pytest.raises(Refusal) as exc:
        engine(winst).submit_draft("t", "x" * (MAX_BODY_CHARS + 1), ["c"])
    assert exc.value.payload()["refusal"]["wrote"] is False
