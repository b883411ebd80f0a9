"""Kill a write at a named crash point or at a random moment, then check nothing is torn.

Run as a script it performs one write (``python kill_harness.py ROOT KIND``), or serves
forked writers (``--serve``, see KillServer) so each kill costs a fork, not an interpreter
start. Imported, it seeds
the instance, runs workers, recovers and checks what the kill left: the write applied once or
not at all, git history, review records and CONTEXT agreeing, and no residue (no intent, temp
file or git lock left, nothing uncommitted). tests/core/writes/test_kills.py and
bench/bench_kills.py both use it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
KINDS = ("status-set", "delivery", "note", "decide", "approve", "reject", "withdraw")
REVIEW_KINDS = ("approve", "reject", "withdraw")
NOTE_TITLE = "Kill note"
DECISION_TITLE = "Kill decision"
DRAFT_TITLE = "Dunning reminders"


def points_for(kind: str) -> tuple[str, ...]:
    """The crash points a write of this kind passes."""
    from revetly_core.writes.crash import CRASH_POINTS

    if kind in ("reject", "withdraw"):
        return ("intent-temp-written", "intent-recorded", "review-temp-written", "review-saved",
                "intent-cleared")
    if kind == "approve":
        return CRASH_POINTS
    return tuple(p for p in CRASH_POINTS if not p.startswith("review-"))


def worker_env(point: str | None = None) -> dict[str, str]:
    """The environment of a worker (armed at point, when given)."""
    env = dict(os.environ)
    for name in ("REVETLY_INSTANCE", "REVETLY_CRASH_AT", "REVETLY_ACTOR_KIND",
                 "REVETLY_SERVICE_IDENTITY"):
        env.pop(name, None)
    env["REVETLY_ACTOR"] = "Dana Reyes"
    env["REVETLY_REVIEWER"] = "Ana Person"
    if point is not None:
        env["REVETLY_CRASH_AT"] = point
    return env


def perform(engine: Any, kind: str) -> dict[str, Any]:
    """One write of a kind, always the same one (the review is the one the template parked)."""
    rid = engine.list_reviews("all")["reviews"][0]["review_id"] if kind in REVIEW_KINDS else ""
    if kind == "status-set":
        out: dict[str, Any] = engine.set_status("STORY-0001", "in-progress",
                                                claimed_by="kill-test")
    elif kind == "delivery":
        out = engine.set_status("STORY-0001", "done", verdicts=["met", "met"])
    elif kind == "note":
        out = engine.record_conversation(NOTE_TITLE, "A note a kill may interrupt.")
    elif kind == "decide":
        out = engine.record_conversation(
            DECISION_TITLE, "We decided.", decisions=[{
                "title": DECISION_TITLE, "decision": "Invoices go out weekly.",
                "supersedes": ["DEC-0001"]}])
    elif kind == "approve":
        out = engine.resolve_review(rid, "approve")
    elif kind == "reject":
        out = engine.resolve_review(rid, "reject", "not now")
    elif kind == "withdraw":
        out = engine.withdraw_review(rid, "nobody will answer it")
    else:
        raise ValueError(kind)
    return out


def seed_template(root: Path) -> Path:
    """A synced instance holding an epic, a story, a decision and one parked draft."""
    from revetly_core import Engine
    from tests.core.gitrepo import Instance
    from tests.core.writes.seed import seed_files

    inst = Instance(root)
    inst.git.write_and_commit(seed_files(), "seed")
    saved = dict(os.environ)
    os.environ.update(worker_env())
    try:
        engine = Engine.open(root)
        engine.capture_mode = "none"
        engine.sync()
        engine.submit_draft(DRAFT_TITLE, "Remind customers who have not paid.",
                            ["A reminder goes out after 7 days"], parent="EPIC-0001",
                            agent_name="kill-agent", agent_version="1.0")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return root


class KillServer:
    """A worker process that imports the engine once, then forks one child per write.

    Each write runs in its own forked child process, which dies at its armed crash point
    (``os._exit``) or is sent SIGKILL by the server after a delay: real processes, killed for
    real, without paying the interpreter's start-up for each one.
    """

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(HERE), "--serve"], env=worker_env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self._line() != "ready":
            raise AssertionError("the kill server did not start")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def _ask(self, *words: object) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(" ".join(str(w) for w in words) + "\n")
        self.proc.stdin.flush()
        return self._line()

    def run(self, root: Path, kind: str, point: str | None) -> int:
        """One write in a child armed at point (or unarmed): the child's exit status."""
        answer = self._ask("run", root, kind, point or "-")
        status = int(answer.split()[1])
        if status not in (0, 86):
            raise AssertionError(f"write {kind}@{point} failed with exit {status}")
        return status

    def kill(self, root: Path, kind: str, delay: float) -> bool:
        """One write SIGKILLed delay seconds after its engine opened; True if the kill arrived
        before the write ended."""
        answer = self._ask("kill", root, kind, f"{delay:.6f}")
        if answer.startswith("exit") and int(answer.split()[1]) != 0:
            raise AssertionError(f"write {kind} failed: {answer}")
        return answer == "killed"

    def time(self, root: Path, kind: str, point: str | None = None) -> float:
        """Seconds from a child's engine opening until its write ends (or, armed, until it
        dies at point)."""
        return float(self._ask("time", root, kind, point or "-").split()[1])

    def flight_time(self, template: Path, scratch: Path, kind: str, runs: int = 3) -> float:
        """Median seconds a write of a kind is in flight: from its intent file appearing (seen
        from outside) to its end."""
        times = sorted(float(self._ask("timeflight", fresh_copy(template, scratch / "timing"),
                                       kind).split()[1]) for _ in range(runs))
        return times[len(times) // 2]

    def kill_in_flight(self, root: Path, kind: str, delay: float) -> bool:
        """One write SIGKILLed delay seconds after its intent file appeared; True if killed."""
        answer = self._ask("killflight", root, kind, f"{delay:.6f}")
        if answer.startswith("exit") and int(answer.split()[1]) != 0:
            raise AssertionError(f"write {kind} failed: {answer}")
        return answer == "killed"

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _child(root: str, kind: str, point: str | None, opened: int) -> None:
    """In the forked child: open the engine, tell the server (a byte on opened), write, exit
    (or die at the armed point)."""
    import traceback

    from revetly_core import Engine

    code = 0
    try:
        if point is not None:
            os.environ["REVETLY_CRASH_AT"] = point
        engine = Engine.open(root)
        engine.capture_mode = "none"
        os.write(opened, b"o")
        perform(engine, kind)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


def _await_intent(root: Path, pid: int) -> int | None:
    """Watch (from outside) until the child's intent file appears: None then, or the child's
    wait status when it ended first."""
    folder = root / ".revetly" / "intents"
    while True:
        with contextlib.suppress(FileNotFoundError):
            if any(e.name.endswith(".json") for e in os.scandir(folder)):
                return None
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.0002)


def serve() -> int:
    """The kill server's loop: one forked child per request line, its fate answered."""
    import signal

    import revetly_core.engine
    import revetly_core.ingest.readpass
    import revetly_core.writes.conversation
    import revetly_core.writes.drafts
    import revetly_core.writes.status  # noqa: F401

    print("ready", flush=True)
    for line in sys.stdin:
        verb, root, kind, arg = [*line.split(), "-"][:4]
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _child(root, kind, arg if verb in ("run", "time") and arg != "-" else None,
                   write_end)
        os.close(write_end)
        os.read(read_end, 1)  # the child has opened its engine: the write starts now
        os.close(read_end)
        ended = None
        if verb in ("killflight", "timeflight"):
            ended = _await_intent(Path(root), pid)  # the write is in flight from here
        start = time.perf_counter()
        if verb in ("kill", "killflight") and ended is None:
            time.sleep(float(arg))
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        status = ended if ended is not None else os.waitpid(pid, 0)[1]
        elapsed = time.perf_counter() - start
        if verb in ("time", "timeflight"):
            print(f"seconds {elapsed:.6f}", flush=True)
        elif os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            print("killed", flush=True)
        else:
            print(f"exit {os.WEXITSTATUS(status)}", flush=True)
    return 0


def fresh_copy(template: Path, dest: Path) -> Path:
    """A copy of the template instance (work tree, .git and .revetly) to kill a write in."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(template, dest, symlinks=True)
    return dest


@dataclass
class Outcome:
    """What one kill left, after the next sync recovered it."""

    kind: str
    point: str | None
    applied: int
    recovered: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _head_files(repo: Any, folder: str) -> dict[str, bytes]:
    tree = repo[repo.head.target].tree
    try:
        sub = repo[tree[folder].id]
    except KeyError:
        return {}
    return {e.name: bytes(repo[e.id].data) for e in sub}


def _front(data: bytes) -> dict[str, Any]:
    import yaml

    loaded = yaml.safe_load(data.decode().split("---\n")[1])
    return loaded if isinstance(loaded, dict) else {}


def _titled(repo: Any, folder: str, title: str) -> list[str]:
    return sorted(n for n, d in _head_files(repo, folder).items()
                  if n.endswith(".md") and _front(d).get("title") == title)


def commits_since(repo: Any, base: str) -> list[Any]:
    """The commits on top of base, newest first (the history must stay linear)."""
    out = []
    commit = repo[repo.head.target]
    while str(commit.id) != base:
        out.append(commit)
        if len(commit.parents) != 1:
            raise AssertionError("history is not linear")
        commit = commit.parents[0]
    return out


def applied_count(root: Path, kind: str, base: str) -> tuple[int, list[str]]:
    """How many times the write is in history and records (and what disagrees)."""
    import pygit2
    from revetly_core.writes.reviews import ReviewStore

    repo = pygit2.Repository(str(root))
    problems: list[str] = []
    new = commits_since(repo, base)
    review = None
    if kind in REVIEW_KINDS:
        records, corrupt = ReviewStore(root, root / ".revetly").scan()
        if corrupt or len(records) != 1:
            problems.append(f"reviews on record: {len(records)}, corrupt: {corrupt}")
        review = records[0] if records else None
    story = _front(_head_files(repo, "backlog")["STORY-0001.md"])
    if kind == "status-set":
        count = sum(1 for c in new if c.message.startswith("STORY-0001: ready -> in-progress"))
        if (story.get("status") == "in-progress") != (count == 1):
            problems.append(f"story status {story.get('status')} but {count} flip commit(s)")
    elif kind == "delivery":
        dels = [n for n in _head_files(repo, "records") if n.startswith("DEL-")]
        count = len(dels)
        flips = sum(1 for c in new if "-> done" in c.message.splitlines()[0])
        if flips != count or (story.get("status") == "done") != (count >= 1):
            problems.append(f"{count} delivery record(s), {flips} done flip(s), "
                            f"story {story.get('status')}")
    elif kind == "note":
        count = len(_titled(repo, "notes", NOTE_TITLE))
    elif kind == "decide":
        titled = _titled(repo, "notes", DECISION_TITLE)
        count = sum(1 for n in titled if n.startswith("CONV-"))
        decs = sum(1 for n in titled if n.startswith("DEC-"))
        superseded = _front(_head_files(repo, "notes")["DEC-0001.md"]).get("superseded_by")
        if decs != count or (superseded is not None) != (count > 0):
            problems.append(f"{count} conversation(s), {decs} decision(s), DEC-0001 "
                            f"superseded_by {superseded}")
    elif kind == "approve":
        stories = _titled(repo, "backlog", DRAFT_TITLE)
        count = len(stories)
        status = review.status if review else None
        if (status == "applied") != (count == 1):
            problems.append(f"review {status} but {count} story file(s) in HEAD")
        if count == 1 and review is not None and review.written is not None:
            if review.written.get("commit") not in {str(c.id) for c in new}:
                problems.append("the review's commit is not the one in history")
            log = _front(_head_files(repo, "backlog")[stories[0]]).get("review_log", [])
            if not log or log[0].get("by") != "Ana Person" or not log[0].get("drafted_via"):
                problems.append(f"review_log does not credit approver and agent: {log}")
    else:
        want = "resolved" if kind == "reject" else "withdrawn"
        count = int(review is not None and review.status == want)
        if review is not None and review.status not in ("pending", want):
            problems.append(f"review is {review.status}")
    expected_commits = count if kind not in ("reject", "withdraw") else 0
    if len(new) != expected_commits:
        problems.append(f"{len(new)} commit(s) for {count} application(s)")
    return count, problems


def residue(root: Path) -> list[str]:
    """What a finished write must not leave: intents, temp files, git locks, uncommitted files."""
    import pygit2

    found: list[str] = []
    intents = root / ".revetly" / "intents"
    if intents.is_dir():
        found += [f"intent {p.name}" for p in intents.iterdir()]
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames:
            dirnames.remove(".git")
        found += [f"temp {Path(dirpath, n).relative_to(root)}" for n in filenames
                  if n.endswith(".tmp")]
    gitdir = root / ".git"
    found += [f"git lock {p.relative_to(root)}" for p in gitdir.rglob("*.lock")]
    repo = pygit2.Repository(str(root))
    dirty = {p: f for p, f in repo.status().items() if not f & pygit2.enums.FileStatus.IGNORED}
    found += [f"uncommitted {p}" for p in sorted(dirty)]
    return found


def context_agrees(root: Path, kind: str, count: int) -> list[str]:
    """CONTEXT (after the sync) holds what HEAD holds for the write."""
    import sqlite3

    import pygit2

    db = sqlite3.connect(f"file:{root / '.revetly' / 'context.db'}?mode=ro", uri=True)
    try:
        problems: list[str] = []
        repo = pygit2.Repository(str(root))
        story = _front(_head_files(repo, "backlog")["STORY-0001.md"])
        held = db.execute("SELECT status FROM artifacts WHERE id = 'STORY-0001'").fetchone()
        if held is None or held[0] != story.get("status"):
            problems.append(f"CONTEXT holds STORY-0001 as {held}, HEAD as {story.get('status')}")
        title = {"note": NOTE_TITLE, "decide": DECISION_TITLE, "approve": DRAFT_TITLE}.get(kind)
        if title is not None:
            n = db.execute("SELECT count(*) FROM artifacts WHERE title = ? AND deleted = 0 "
                           "AND type IN ('conversation', 'story')", (title,)).fetchone()[0]
            if n != count:
                problems.append(f"CONTEXT holds {n} artifact(s) titled {title!r}, HEAD {count}")
        if kind == "delivery":
            n = db.execute("SELECT count(*) FROM artifacts WHERE type = 'delivery' "
                           "AND deleted = 0").fetchone()[0]
            if n != count:
                problems.append(f"CONTEXT holds {n} delivery record(s), HEAD {count}")
        return problems
    finally:
        db.close()


def settle(root: Path, kind: str, point: str | None) -> Outcome:
    """Recover with a sync (as the next command would), then check everything agrees."""
    from revetly_core import Engine

    saved = dict(os.environ)
    os.environ.update(worker_env())
    try:
        engine = Engine.open(root)
        engine.capture_mode = "none"
        synced = engine.sync()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    template_head = (root / ".revetly" / "template-head").read_text().strip()
    count, problems = applied_count(root, kind, template_head)
    problems += residue(root)
    problems += context_agrees(root, kind, count)
    if count > 1:
        problems.append(f"applied {count} times")
    return Outcome(kind, point, count, list(synced.get("recovered", [])), problems)


def retry(root: Path, kind: str) -> Outcome:
    """The caller's retry after a kill that left nothing applied: it must apply exactly once."""
    from revetly_core import Engine

    saved = dict(os.environ)
    os.environ.update(worker_env())
    try:
        engine = Engine.open(root)
        engine.capture_mode = "none"
        perform(engine, kind)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return settle(root, kind, "retry")


def mark_template(template: Path) -> None:
    """Remember the template's HEAD, the base every kill's history is counted from."""
    import pygit2

    head = str(pygit2.Repository(str(template)).head.target)
    (template / ".revetly" / "template-head").write_text(head + "\n")


def main(argv: list[str]) -> int:
    from revetly_core import Engine

    if argv[1:] == ["--serve"]:
        return serve()
    engine = Engine.open(Path(argv[1]))
    engine.capture_mode = "none"
    perform(engine, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
