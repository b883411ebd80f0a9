"""The local record of a write-back: ``.revetly/writeback/<id>.json``, one per tracker item.

It says what Revetly last set on the item (status, claim, delivery) and, step by step, what
landed on the tracker and what did not (``pending`` until tried, ``not_landed`` with the
failure). It is made durable *before* the write's local commit and names the files that
commit holds (by digest), so a record whose commit never landed (a kill, a rollback) is
recognised by the next write and replaced by the record before it: never half-done.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from revetly_core.answers.maintenance import CheckProblem
from revetly_core.fsread import ReadRefused, read_file
from revetly_core.writes.files import atomic_write

WRITEBACK_DIR = "writeback"
MAX_RECORD_BYTES = 2_000_000
PENDING, LANDED, NOT_LANDED = "pending", "landed", "not_landed"


@dataclass
class WritebackRecord:
    """What Revetly last set on one tracker item and what of it reached the tracker."""

    artifact_id: str
    source: str
    status: str
    at: str
    claim: dict[str, Any] | None = None
    delivery: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    """Each ``{step, state, …its arguments, landed?, failure?}`` in the order they run."""
    files: dict[str, str] = field(default_factory=dict)
    """Instance files the write committed -> sha256 of their bytes."""
    commit: str | None = None
    prior: dict[str, Any] | None = None
    """The record this one replaced, restored when this one's commit never landed."""
    seen_updated: str | None = None
    """The item's ``source_updated_at`` as CONTEXT held it when this write was made."""

    def to_json(self) -> dict[str, Any]:
        return {"artifact_id": self.artifact_id, "source": self.source, "status": self.status,
                "at": self.at, "claim": self.claim, "delivery": self.delivery,
                "steps": self.steps, "files": self.files, "commit": self.commit,
                "prior": self.prior, "seen_updated": self.seen_updated}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WritebackRecord:
        return cls(str(data["artifact_id"]), str(data["source"]), str(data["status"]),
                   str(data["at"]), data.get("claim"), data.get("delivery"),
                   list(data.get("steps") or []), dict(data.get("files") or {}),
                   data.get("commit"), data.get("prior"), data.get("seen_updated"))

    def open_steps(self) -> list[dict[str, Any]]:
        """The steps that have not landed (pending or failed)."""
        return [s for s in self.steps if s.get("state") != LANDED]


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_rel(artifact_id: str) -> str:
    """Where an item's record lives, relative to the instance's state folder."""
    return f"{WRITEBACK_DIR}/{artifact_id}.json"


def load_record(state: Path, artifact_id: str) -> WritebackRecord | None:
    """The item's record, or None (none yet, or unreadable: a record is rebuilt by the next
    write, never trusted half-read)."""
    try:
        data = json.loads(read_file(state, record_rel(artifact_id), MAX_RECORD_BYTES))
        return WritebackRecord.from_json(data)
    except (FileNotFoundError, ReadRefused, ValueError, KeyError, TypeError):
        return None


def save_record(state: Path, record: WritebackRecord) -> None:
    """Make the record durable (temp, fsync, rename; 0600)."""
    data = json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False).encode("utf-8")
    atomic_write(state / record_rel(record.artifact_id), data, mode=0o600)


def drop_record(state: Path, artifact_id: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        (state / record_rel(artifact_id)).unlink()


def committed(root: Path, record: WritebackRecord) -> bool:
    """Whether HEAD holds every file the record's write committed, with those bytes."""
    if not record.files:
        return True
    from revetly_core.writes.git_commit import head_bytes

    for rel, want in record.files.items():
        data = head_bytes(root, rel)
        if data is None or digest_of(data) != want:
            return False
    return True


def restore_prior(state: Path, record: WritebackRecord) -> WritebackRecord | None:
    """Put back the record this one replaced (its commit never landed); None when none."""
    if record.prior is None:
        drop_record(state, record.artifact_id)
        return None
    prior = WritebackRecord.from_json(record.prior)
    save_record(state, prior)
    return prior


def settled_record(root: Path, state: Path, artifact_id: str) -> WritebackRecord | None:
    """The item's record as the last *completed* write left it (call under the write lock,
    after recovery): a record whose commit is not in HEAD gives way to its prior."""
    record = load_record(state, artifact_id)
    if record is not None and not committed(root, record):
        return restore_prior(state, record)
    return record


def open_records(state: Path) -> list[WritebackRecord]:
    """Every item's record that still has a step the tracker has not taken, by id."""
    folder = state / WRITEBACK_DIR
    if not folder.is_dir():
        return []
    out = [load_record(state, p.stem) for p in sorted(folder.glob("*.json"))]
    return [r for r in out if r is not None and r.open_steps()]


def not_landed_problems(state: Path) -> list[CheckProblem]:
    """What `check` names: write-backs with steps that did not land on the tracker (offline:
    read from the records, no request)."""
    problems: list[CheckProblem] = []
    for record in open_records(state):
        steps = ", ".join(
            s["step"] + (f" ({s['failure']['code']})" if isinstance(s.get("failure"), dict)
                         else " (not tried)") for s in record.open_steps())
        problems.append({
            "path": f".revetly/{record_rel(record.artifact_id)}", "id": record.artifact_id,
            "source": record.source, "code": "writeback-not-landed", "severity": "warning",
            "detail": f"{record.artifact_id} was set {record.status}; on {record.source} "
                      f"these did not land: {steps}",
            "fix": f"set {record.artifact_id} {record.status} again (`revetly status-set "
                   f"{record.artifact_id} {record.status}`, the same claimant for in-progress): "
                   "the open steps are sent again"})
    return problems
