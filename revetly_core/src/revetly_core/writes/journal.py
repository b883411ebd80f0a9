"""One write, one intent: recorded first under .revetly/intents/, applied, then cleared.

An intent holds everything the write will do: each file's bytes before and after, the commit
message (with a ``Revetly-Intent`` trailer), who authors and commits it, and the review record
to save once it is committed. A write runs its intent to the end; a process killed anywhere on
the way leaves the intent behind, and the next write or sync (under the same write lock)
finishes it exactly once when nothing has moved under it, or rolls it back, and says which.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from revetly_core.refusal import Refusal
from revetly_core.writes.containment import contained
from revetly_core.writes.crash import crash_point
from revetly_core.writes.files import atomic_write, sweep_temp_files
from revetly_core.writes.git_commit import (
    INTENT_TRAILER,
    commit_bytes,
    commit_of_intent,
    git_lock_files,
    head_bytes,
    held_write_lock,
    refresh_index,
)
from revetly_core.writes.reviews import REVIEWS_DIR, ReviewRecord, ReviewStore, utc_now

if TYPE_CHECKING:  # a typed dict only: a sync recovering writes never loads the answers
    from revetly_core.answers.maintenance import CheckProblem

INTENTS_DIR = "intents"
STALE_SLACK_S = 2.0
"""A git lock older than the dead intent by more than this predates it and is not its own."""


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: object) -> bytes | None:
    return None if text is None else base64.b64decode(str(text))


@dataclass
class Intent:
    """What one write is about to do, durable before it does any of it."""

    intent_id: str
    kind: str
    pid: int
    host: str
    created_at: str
    created_ts: float
    message: str = ""
    author: dict[str, Any] = field(default_factory=dict)
    committer: dict[str, Any] = field(default_factory=dict)
    after: dict[str, bytes | None] = field(default_factory=dict)
    before: dict[str, bytes | None] = field(default_factory=dict)
    review: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "intent_id": self.intent_id, "kind": self.kind, "pid": self.pid, "host": self.host,
            "created_at": self.created_at, "created_ts": self.created_ts,
            "message": self.message, "author": self.author, "committer": self.committer,
            "files": [{"path": p, "after": _b64(self.after[p]), "before": _b64(self.before[p])}
                      for p in sorted(self.after)],
            "review": self.review,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Intent:
        files = data.get("files") or []
        return cls(
            intent_id=str(data["intent_id"]), kind=str(data["kind"]), pid=int(data["pid"]),
            host=str(data["host"]), created_at=str(data["created_at"]),
            created_ts=float(data["created_ts"]), message=str(data.get("message", "")),
            author=dict(data.get("author") or {}), committer=dict(data.get("committer") or {}),
            after={str(f["path"]): _unb64(f.get("after")) for f in files},
            before={str(f["path"]): _unb64(f.get("before")) for f in files},
            review=data.get("review"),
        )


class Journal:
    """The intents of one instance."""

    def __init__(self, root: Path, state_dir: Path) -> None:
        self.root = root
        self.state = state_dir
        self.folder = state_dir / INTENTS_DIR

    def path(self, intent: Intent) -> Path:
        return self.folder / f"{intent.intent_id}.json"

    def record(self, intent: Intent) -> None:
        """Make the intent durable (temp, fsync, rename): from here on it is finished or undone."""
        data = json.dumps(intent.to_json(), sort_keys=True).encode("utf-8")
        atomic_write(self.path(intent), data, mode=0o600, crash="intent-temp-written")
        crash_point("intent-recorded")

    def clear(self, intent: Intent) -> None:
        """The intent is complete: remove it."""
        with contextlib.suppress(FileNotFoundError):
            self.path(intent).unlink()
        crash_point("intent-cleared")

    def pending(self) -> list[tuple[Path, Intent | None]]:
        """Every intent on record, oldest first (None for one that cannot be read)."""
        if not self.folder.is_dir():
            return []
        out: list[tuple[Path, Intent | None]] = []
        for path in sorted(self.folder.glob("INT-*.json")):
            try:
                out.append((path, Intent.from_json(json.loads(path.read_bytes()))))
            except (OSError, ValueError, KeyError, TypeError):
                out.append((path, None))
        out.sort(key=lambda item: item[1].created_ts if item[1] is not None else 0.0)
        return out


def new_intent(kind: str) -> Intent:
    """A fresh intent of this process, stamped now."""
    stamp = f"{int(time.time() * 1000):013x}"
    return Intent(f"INT-{stamp}-{secrets.token_hex(4)}", kind, os.getpid(),
                  socket.gethostname(), utc_now(), time.time())


def _disk(root: Path, rel: str) -> bytes | None:
    path = root / rel
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_bytes()


def _place(root: Path, rel: str, data: bytes | None, crash: str | None = None) -> None:
    """Put a file's bytes in the work tree (None removes it)."""
    path = root / contained(root, root / rel)
    if data is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write(path, data, crash=crash)


def _save_review(root: Path, state: Path, review: dict[str, Any], commit: str | None) -> None:
    """Save the review record the intent carries, with the commit filled in."""
    from revetly_core.writes.capture import handle_for

    record = ReviewRecord.from_json(review)
    if record.written is not None and commit is not None:
        record.written = {**record.written, "commit": commit, "capture": handle_for(commit)}
    ReviewStore(root, state).save(record, crash="review-temp-written")
    crash_point("review-saved")


def run_intent(journal: Journal, intent: Intent, *, fresh: bool = False) -> str | None:
    """Carry an intent to the end: files in place, committed once, review saved, intent cleared.

    A commit already carrying the intent's trailer is not made again (fresh: the intent was
    recorded just now by this process, so history cannot hold its commit yet).
    """
    root = journal.root
    for n, rel in enumerate(sorted(intent.after)):
        if _disk(root, rel) != intent.after[rel]:
            _place(root, rel, intent.after[rel], crash="file-temp-written" if n == 0 else None)
        if n == 0:
            crash_point("first-file-written")
    if intent.after:
        crash_point("files-written")
    commit: str | None = None
    if intent.after:
        commit = None if fresh else commit_of_intent(root, intent.intent_id)
        if commit is None:
            at = int(intent.created_ts)
            commit = commit_bytes(root, dict(intent.after), intent.message, intent.author,
                                  intent.committer or intent.author, at)
        else:
            refresh_index(root, dict(intent.after))
    if intent.review is not None:
        _save_review(root, journal.state, intent.review, commit)
    journal.clear(intent)
    return commit


def roll_back(journal: Journal, intent: Intent) -> list[str]:
    """Undo what an uncommitted intent placed: each file holding our bytes gets its old ones back.

    Returns the files left alone because someone else changed them since.
    """
    root = journal.root
    kept: list[str] = []
    for rel in sorted(intent.after):
        now = _disk(root, rel)
        if now == intent.after[rel] and now != intent.before[rel]:
            _place(root, rel, intent.before[rel])
        elif now != intent.before[rel]:
            kept.append(rel)
    journal.clear(intent)
    return kept


def _review_still_open(journal: Journal, intent: Intent) -> bool:
    """The review an intent answers is still pending (or already holds this intent's answer)."""
    if intent.review is None:
        return True
    try:
        current = ReviewStore(journal.root, journal.state).load(intent.review.get("review_id"))
    except Refusal:
        return False
    return current.status == "pending" or current.to_json() == intent.review


def can_roll_forward(journal: Journal, intent: Intent) -> bool:
    """Nothing moved under an uncommitted intent: HEAD and the work tree hold its files as
    they were (or as it left them), and the review it answers is still open."""
    root = journal.root
    for rel in intent.after:
        if head_bytes(root, rel) != intent.before[rel]:
            return False
        if _disk(root, rel) not in (intent.before[rel], intent.after[rel]):
            return False
    return _review_still_open(journal, intent)


def _clear_own_git_locks(root: Path, intent: Intent) -> list[str]:
    """Remove the git lock files a dead intent's process left (taken after it started)."""
    removed: list[str] = []
    for lock in git_lock_files(root):
        with contextlib.suppress(OSError):
            if lock.stat().st_mtime >= intent.created_ts - STALE_SLACK_S:
                lock.unlink()
                removed.append(lock.name)
    return removed


def recover_intent(journal: Journal, intent: Intent) -> dict[str, Any]:
    """Finish or roll back one intent a dead process left, and say which."""
    root = journal.root
    report: dict[str, Any] = {"intent": intent.intent_id, "kind": intent.kind,
                              "pid": intent.pid, "started_at": intent.created_at}
    locks = _clear_own_git_locks(root, intent) if intent.after else []
    if locks:
        report["git_locks_removed"] = locks
    landed = commit_of_intent(root, intent.intent_id) if intent.after else None
    if landed is not None or can_roll_forward(journal, intent):
        commit = run_intent(journal, intent)
        report.update(outcome="completed", commit=commit,
                      detail="its commit had landed; the steps after it were finished now"
                      if landed else "it was carried out now, once: nothing had moved under it")
    else:
        kept = roll_back(journal, intent)
        report.update(outcome="rolled-back", detail="something changed under it since it was "
                      "recorded, so what it had written was put back; nothing was committed")
        if kept:
            report["left_as_found"] = kept
    if intent.review is not None:
        report["review_id"] = intent.review.get("review_id")
    return report


def sweep(journal: Journal, folders: set[Path]) -> list[str]:
    """Remove temp files dead writers left in the write folders, reviews and intents."""
    removed: list[str] = []
    for folder in sorted({journal.folder, journal.root / REVIEWS_DIR, *folders}):
        removed += sweep_temp_files(folder)
    return removed


def recover(root: Path, state_dir: Path, *, thorough: bool = False) -> list[dict[str, Any]]:
    """Every intent a dead process left, finished or rolled back (call under the write lock).

    Temp files dead writers left are swept from the intents folder always, from the folders
    the intents wrote to, and (thorough, or once an intent was found) from the reviews.
    """
    journal = Journal(root, state_dir)
    reports: list[dict[str, Any]] = []
    folders: set[Path] = set()
    for path, intent in journal.pending():
        if intent is None:
            path.rename(path.with_suffix(".unreadable"))
            reports.append({"intent": path.stem, "outcome": "set-aside",
                            "detail": "the intent cannot be read; it was renamed "
                                      f"{path.with_suffix('.unreadable').name} and not applied"})
            continue
        folders |= {(root / rel).parent for rel in intent.after}
        reports.append(recover_intent(journal, intent))
    if thorough or reports:
        sweep(journal, folders)
    else:
        sweep_temp_files(journal.folder)
    return reports


def foreign_git_lock(root: Path) -> Refusal | None:
    """A git lock no dead write of ours explains: a live git command's, or a crash's we cannot
    date. It is named, never removed behind the owner's back."""
    locks = git_lock_files(root)
    if not locks:
        return None
    lock = locks[0]
    age = max(0.0, time.time() - lock.stat().st_mtime)
    rel = os.path.relpath(lock, root)
    return Refusal("git-locked", f"{rel} exists ({age:.0f} s old): a git command is updating "
                   "this repository, or one was killed doing it",
                   f"wait for the git command to finish; if none is running, delete {rel}",
                   {"lock": rel, "age_s": round(age, 1), "wrote": False})


class WriteBatch:
    """The files one write changes, planned in memory and applied through one intent."""

    def __init__(self, root: Path, state_dir: Path, kind: str,
                 recovered: list[dict[str, Any]]) -> None:
        self.root = root
        self.state = state_dir
        self.kind = kind
        self.recovered = recovered
        self.planned: dict[str, bytes] = {}

    def write(self, path: Path, data: bytes) -> None:
        """Plan a file's new bytes; a path that would leave the instance is refused now."""
        self.planned[contained(self.root, path)] = data

    def read_bytes(self, path: Path) -> bytes | None:
        """A file's bytes as this write will leave it (planned, else on disk, else None)."""
        rel = contained(self.root, path)
        return self.planned[rel] if rel in self.planned else _disk(self.root, rel)

    def names_in(self, folder: Path) -> set[str]:
        """The file names this write plans inside a folder."""
        rel = Path(os.path.relpath(folder, self.root)).as_posix()
        return {Path(p).name for p in self.planned if Path(p).parent.as_posix() == rel}

    def discard(self) -> None:
        """Forget every planned file (the write was refused before anything happened)."""
        self.planned.clear()

    def commit(self, message: str, author: dict[str, Any], committer: dict[str, Any] | None = None,
               review: ReviewRecord | None = None) -> str:
        """Record the intent for the planned files (and review), then carry it out: the commit."""
        if not self.planned:
            raise Refusal("nothing-to-commit", "no file was given to commit", "name the files")
        commit = self._apply(message, author, committer, review)
        if commit is None:  # pragma: no cover - files always make a commit
            raise Refusal("internal", "the write made no commit", "report this")
        return commit

    def save_review(self, review: ReviewRecord) -> None:
        """Record the intent for a review answer that writes no file, then save it."""
        self.planned.clear()
        self._apply("", None, None, review)

    def _apply(self, message: str, author: dict[str, Any] | None,
               committer: dict[str, Any] | None, review: ReviewRecord | None) -> str | None:
        """Record the intent, then carry it out; returns the commit (None without files)."""
        intent = new_intent(self.kind)
        if self.planned:
            intent.message = f"{message.rstrip()}\n\n{INTENT_TRAILER}: {intent.intent_id}\n"
            intent.author = author or {"name": "unknown"}
            intent.committer = committer or intent.author
            intent.after = {rel: data for rel, data in self.planned.items()}
            intent.before = {rel: _disk(self.root, rel) for rel in self.planned}
        intent.review = review.to_json() if review is not None else None
        journal = Journal(self.root, self.state)
        journal.record(intent)
        try:
            commit = run_intent(journal, intent, fresh=True)
        except Exception:
            if not intent.after or commit_of_intent(self.root, intent.intent_id) is None:
                roll_back(journal, intent)  # a failure, not a kill: undone before it is raised
            raise
        self.planned.clear()
        return commit


@contextmanager
def write_lock(state_dir: Path, root: Path | None = None,
               kind: str = "write") -> Iterator[WriteBatch]:
    """Hold the instance's write lock: recovery first, then read, plan and apply, never
    interleaved with another writer. Nothing reaches the instance before ``apply``."""
    root = state_dir.parent if root is None else root
    with held_write_lock(state_dir, kind):
        recovered = recover(root, state_dir) if (root / ".git").exists() else []
        if (root / ".git").exists():
            refusal = foreign_git_lock(root)
            if refusal is not None:
                raise refusal
        yield WriteBatch(root, state_dir, kind, recovered)


def recover_writes(root: Path, state_dir: Path) -> list[dict[str, Any]]:
    """What a sync runs first: every intent a dead write left, finished or rolled back."""
    if not state_dir.is_dir() or not (root / ".git").exists():
        return []
    journal = Journal(root, state_dir)
    if not journal.pending():  # nothing to settle: no lock taken, so a sync never waits on a write
        sweep(journal, set())  # only dead writers' temp files go
        return []
    with held_write_lock(state_dir, "recovery"):
        return recover(root, state_dir, thorough=True)


def pending_intent_problems(state_dir: Path) -> list[CheckProblem]:
    """What `check` names: intents a dead write left, which the next write or sync settles."""
    journal = Journal(state_dir.parent, state_dir)
    return [{
        "path": path.relative_to(state_dir.parent).as_posix(), "code": "unfinished-write",
        "detail": f"a {intent.kind if intent else 'unreadable'} write was interrupted "
                  f"({intent.created_at if intent else 'unknown time'}); the next write or "
                  "`revetly sync` finishes it or rolls it back",
        "fix": "run `revetly sync`",
    } for path, intent in journal.pending()]
