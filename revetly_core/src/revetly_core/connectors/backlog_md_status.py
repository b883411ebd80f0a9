"""Backlog.md statuses and folders mapped to Revetly's: the declared table and folder rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

from revetly_core.model import DECISION_STATUSES

FOLDER_KINDS: tuple[tuple[str, str], ...] = (
    ("archive/tasks/", "archived-task"),
    ("archive/drafts/", "archived-draft"),
    ("archive/milestones/", "archived-milestone"),
    ("tasks/", "task"),
    ("completed/", "completed"),
    ("drafts/", "draft"),
    ("milestones/", "milestone"),
    ("decisions/", "decision"),
    ("docs/", "doc"),
)
"""Folder inside the Backlog.md project -> what its files are (longest prefix first)."""

FOLDER_STATUS: dict[str, str] = {
    "draft": "draft",
    "completed": "done",
    "archived-task": "discarded",
    "archived-draft": "discarded",
}
"""Folders whose meaning fixes the status, whatever the file says."""

FOLDER_RANK: dict[str, int] = {"task": 0, "completed": 1, "draft": 2, "archived-task": 3,
                               "archived-draft": 4}
"""Which copy holds an id two files carry: the live folder before the older ones."""


def folder_kind(rel: str) -> str | None:
    """What a file is from where it sits inside the project folder, None if not read."""
    for prefix, kind in FOLDER_KINDS:
        if rel.startswith(prefix):
            return kind
    return None


@dataclass(frozen=True)
class StatusReading:
    """The Revetly status of a work item, and the assumption made to reach it (if any)."""

    status: str
    assumed: str | None = None


def folder_disagrees(kind: str, mapped: str | None) -> bool:
    """True when a file's own status contradicts its folder: an unfinished task in
    completed/, or a draft already in progress or done. Archived files are discarded
    whatever they say (archiving is the statement)."""
    if kind == "completed":
        return mapped != "done"
    if kind == "draft":
        return mapped in ("in-progress", "done")
    return False


STATUS_WORDS: tuple[tuple[str, str], ...] = (
    ("not started", "ready"), ("in progress", "in-progress"), ("in-progress", "in-progress"),
    ("in design", "in-progress"), ("in review", "in-progress"), ("completed", "done"),
    ("complete", "done"), ("done", "done"), ("pending", "ready"), ("todo", "ready"),
    ("to do", "ready"), ("open", "ready"), ("created", "ready"), ("ready", "ready"),
    ("blocked", "parked"), ("on hold", "parked"), ("cancelled", "discarded"),
    ("canceled", "discarded"), ("skipped", "discarded"),
)
"""Words a hand-written status line begins with, and the status each means (first match)."""


def guess_status(written: str) -> str | None:
    """The status a free-text status line means (``✅ COMPLETED (2025-11-14)`` is done):
    its markup and emoji dropped, read by the word it begins with; None when unclear."""
    text = re.sub(r"[^a-z -]+", " ", written.casefold()).strip()
    text = " ".join(text.split())
    for word, status in STATUS_WORDS:
        if text == word or text.startswith(word + " "):
            return status
    return None


def work_item_status(written: str | None, kind: str, table: dict[str, str]) -> StatusReading:
    """The folder's status when it fixes one, else the table's; disagreements are assumptions."""
    mapped = table.get(written.strip().casefold()) if written else None
    fixed = FOLDER_STATUS.get(kind)
    if fixed is not None:
        if written and folder_disagrees(kind, mapped):
            return StatusReading(fixed, f"status {written!r} disagrees with the folder; "
                                        f"read as {fixed} (the folder's meaning)")
        return StatusReading(fixed)
    if not written:
        return StatusReading("ready", "no status: read as ready")
    if mapped is None:
        guessed = guess_status(written)
        if guessed is not None:
            return StatusReading(guessed, f"status {written!r} is not in the declared status "
                                          f"table; read as {guessed} from its words")
        return StatusReading("ready", f"status {written!r} is not in the declared status "
                                      "table; read as ready (map it under statuses)")
    return StatusReading(mapped)


def decision_status(written: str | None) -> StatusReading:
    """A decision's status (proposed / accepted / rejected / superseded); others assumed."""
    word = (written or "").strip().casefold()
    if word in DECISION_STATUSES:
        return StatusReading(word)
    if word == "deprecated":
        return StatusReading("superseded", "status 'deprecated' read as superseded")
    if not word:
        return StatusReading("proposed", "no status: read as proposed")
    return StatusReading("proposed", f"status {written!r} is not a decision status; "
                                     "read as proposed")
