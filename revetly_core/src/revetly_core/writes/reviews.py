"""The review record store: one JSON file per review (REV- + 16 hex) under .revetly/reviews/."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from revetly_core.isotime import iso_utc
from revetly_core.refusal import Refusal
from revetly_core.writes.files import atomic_write

if TYPE_CHECKING:  # pydantic and the answers' typed dicts: loaded only where they are used
    from pydantic import TypeAdapter

    from revetly_core.answers.writes import ReviewRow

REVIEW_STATUSES = ("pending", "applied", "refused", "resolved", "withdrawn")
"""pending: waiting on a human; applied: approved and written; refused: approved but the write
was refused; resolved: rejected by the reviewer; withdrawn: taken off the list undecided."""
LIST_STATUSES = (*REVIEW_STATUSES, "all")
_REVIEW_ID = re.compile(r"REV-[0-9a-f]{16}")
REVIEWS_DIR = ".revetly/reviews"
"""Where reviews live: in the state folder, but not derived from anything (never delete it)."""


REVIEW_LOCK_TIMEOUT_S = 30.0
"""How long an answer waits for another process answering the same review."""


def utc_now() -> str:
    """The write clock: now, ISO-8601 UTC to the microsecond (orders two writes in a second)."""
    return iso_utc()


def new_review_id() -> str:
    """A fresh review id: REV- and sixteen lowercase hex digits."""
    return f"REV-{secrets.token_hex(8)}"


def is_review_id(value: object) -> bool:
    """Exactly one REV-… segment: REV- and sixteen lowercase hex digits, nothing else."""
    return isinstance(value, str) and bool(_REVIEW_ID.fullmatch(value))


def not_on_record(review_id: object) -> Refusal:
    """The one answer for an id of the wrong shape and for an id nobody recorded."""
    shown = review_id if isinstance(review_id, str) and len(review_id) <= 80 else "(that id)"
    return Refusal("not-on-record", f"review {shown!r} is not on record",
                   "call list_reviews (or `revetly review list`) for the reviews on record",
                   {"review_id": shown})


@dataclass
class ReviewRecord:
    """One review as stored: the draft, who raised it, each raise, and the answer."""

    review_id: str
    kind: str  # "draft" | "revision"
    status: str
    project: str
    created_at: str
    updated_at: str
    drafted_by: dict[str, Any]
    draft: dict[str, Any]
    session_id: str | None = None
    gate: str = "parked"
    raises: list[dict[str, Any]] = field(default_factory=list)
    decision: dict[str, Any] | None = None
    wrote: bool = False
    written: dict[str, Any] | None = None
    refusal: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as its file holds it (every field, JSON types only)."""
        out: dict[str, Any] = record_schema().dump_python(self, mode="json")
        return out

    @classmethod
    def from_json(cls, data: object) -> ReviewRecord:
        """A record read back from its file; a missing or mistyped field raises ValueError."""
        return record_schema().validate_python(data)

    def row(self) -> ReviewRow:
        """The compact row list_reviews serves."""
        out: ReviewRow = {
            "review_id": self.review_id, "status": self.status, "kind": self.kind,
            "title": self.draft.get("title"), "project": self.project,
            "drafted_by": self.drafted_by.get("name"), "created_at": self.created_at,
            "gate": self.gate,
        }
        if self.draft.get("artifact_id"):
            out["artifact_id"] = self.draft["artifact_id"]
        if self.written:
            out["artifact_id"] = self.written.get("artifact_id")
        return out


@cache
def record_schema() -> TypeAdapter[ReviewRecord]:
    """The one schema a review file is written and read through (built on first use, so a
    pass that only recovers writes does not load pydantic)."""
    from pydantic import TypeAdapter

    return TypeAdapter(ReviewRecord)


GOVERNED_KINDS = ("governed-rule", "governed-profile")
"""Reviews a governed proposal opened: answered only through the governed owner review."""


def refuse_governed(record: ReviewRecord) -> None:
    """A governed proposal's review is answered by the owner's governed review, never here."""
    if record.kind in GOVERNED_KINDS:
        raise Refusal("governed-review",
                      f"review {record.review_id} is a governed {record.kind[9:]} proposal",
                      "answer it with `revetly rag owner review` (the governed owner review rechecks "
                      "its sources)", {"review_id": record.review_id, "wrote": False})


class CorruptRecord(Exception):
    """A stored review that cannot be read, or whose own id is malformed."""


class ReviewStore:
    """Reviews of one instance; every write is atomic and fsynced before it is acknowledged."""

    def __init__(self, root: Path, state_dir: Path) -> None:
        self.folder = root / REVIEWS_DIR
        self.locks = state_dir / "locks"

    def _path(self, review_id: str) -> Path:
        if not is_review_id(review_id):  # never build a path from an unchecked id
            raise not_on_record(review_id)
        return self.folder / f"{review_id}.json"

    @contextmanager
    def locked(self, review_id: str) -> Iterator[None]:
        """Hold one review exclusively while it is answered (across processes); a review a
        live process keeps answering past the timeout is a `busy` refusal, never a crash."""
        path = self._path(review_id)
        self.locks.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.locks / f"{path.stem}.lock"))
        try:
            lock.acquire(timeout=REVIEW_LOCK_TIMEOUT_S)
        except Timeout:
            raise Refusal("busy", f"review {review_id} is being answered by another process "
                          f"(held for over {REVIEW_LOCK_TIMEOUT_S:.0f} s)",
                          "try again; `revetly review show` says whether it was answered",
                          {"review_id": review_id, "wrote": False}) from None
        try:
            yield
        finally:
            lock.release()

    def save(self, record: ReviewRecord, *, crash: str | None = None) -> None:
        """Write the record durably: temp file, fsync, rename (crash: the seam's point name)."""
        path = self._path(record.review_id)
        data = json.dumps(record.to_json(), indent=2, sort_keys=True, ensure_ascii=False)
        atomic_write(path, (data + "\n").encode("utf-8"), crash=crash)

    def load(self, review_id: object) -> ReviewRecord:
        """The record for an id; any other shape, or no file, is 'not on record'."""
        if not isinstance(review_id, str) or not is_review_id(review_id):
            raise not_on_record(review_id)
        path = self._path(review_id)
        try:
            return self._read(path)
        except FileNotFoundError:
            raise not_on_record(review_id) from None
        except CorruptRecord as exc:
            raise Refusal("corrupt-record", f"review {review_id} is on record but unreadable: "
                          f"{exc}", "run `revetly check`; restore the file from a backup or "
                          "remove it", {"review_id": review_id}) from None

    def _read(self, path: Path) -> ReviewRecord:
        raw = path.read_bytes()
        try:
            data = json.loads(raw)
            record = ReviewRecord.from_json(data)
        except (ValueError, KeyError, TypeError) as exc:
            raise CorruptRecord(f"not a review record ({type(exc).__name__})") from None
        if not is_review_id(record.review_id) or path.stem != record.review_id:
            raise CorruptRecord("its own review_id is malformed or does not match its file")
        if record.status not in REVIEW_STATUSES:
            raise CorruptRecord(f"unknown status {record.status!r}")
        return record

    def scan(self) -> tuple[list[ReviewRecord], list[dict[str, str]]]:
        """Every readable record, and every corrupt one named by file (never followed)."""
        records: list[ReviewRecord] = []
        corrupt: list[dict[str, str]] = []
        if not self.folder.is_dir():
            return records, corrupt
        for path in sorted(self.folder.glob("*.json")):
            if not is_review_id(path.stem):
                corrupt.append({"file": path.name, "problem": "not a review id"})
                continue
            try:
                records.append(self._read(path))
            except CorruptRecord as exc:
                corrupt.append({"file": path.name, "problem": str(exc)})
        return records, corrupt
