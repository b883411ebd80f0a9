"""An approved draft written into a Backlog.md project as one of its tasks (ADR 0030).

The project's repository is not the instance's, so the instance's write journal cannot hold
the file; the placement is made crash-safe the way the write-back hook is. Under the write
lock, the placement (id, path, the file's text) is made durable first in
``.revetly/writeback/drafts/<review id>.json``; then the task file is written atomically; then
the review is answered through the journal. A kill before the review is saved leaves the
review pending and the placement on record: approving again reuses the same id and file (the
bytes are the same), so a draft never lands twice and never under two ids.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from pathlib import Path
from typing import Any

from revetly_core.fsread import ReadRefused, read_file
from revetly_core.ids import id_key
from revetly_core.model import WORK_ITEM_TYPES, Artifact
from revetly_core.refusal import Refusal
from revetly_core.writeback.backlog_md import (
    TASKS,
    BacklogMdTarget,
    backlog_md_time,
    contained_path,
    file_name,
    next_number,
    status_word,
    task_families,
    task_text,
    written_id,
)
from revetly_core.writes.crash import crash_point
from revetly_core.writes.files import atomic_write

PLACEMENTS = "writeback/drafts"
MAX_PLACEMENT_BYTES = 4_000_000
BACKLOG_MD_CRASH_POINTS = ("backlog-md-placed", "backlog-md-written")
"""Where a kill test can stop an approval into Backlog.md: the placement durable, no file
yet; the task file written, the review not answered."""
APPROVED = "ready"
"""The status an approved draft lands in (the project's word for it: To Do by default)."""


def check_parent(held: Artifact | None, target: BacklogMdTarget, parent_id: str) -> None:
    """A draft landing in a Backlog.md project hangs under a live task of that project (its
    ``parent_task_id``); anything else is refused before a reviewer is asked."""
    key = id_key(parent_id)
    families = task_families(target.settings)
    if (held is None or held.deleted or held.source != target.source
            or held.type not in WORK_ITEM_TYPES or key is None or key.family not in families):
        raise Refusal("not-in-this-store", f"{parent_id} is not a live task of "
                      f"{target.source}, where this draft lands (write_back)",
                      f"name a task of {target.source} as parent (list_backlog shows them), "
                      "or leave parent out", {"id": parent_id, "wrote": False})


def placement_rel(review_id: str) -> str:
    """Where a review's placement is recorded, relative to the instance's state folder."""
    return f"{PLACEMENTS}/{review_id}.json"


def load_placement(state: Path, review_id: str) -> dict[str, Any] | None:
    """The placement an earlier, cut-short approval recorded; None when none (or unreadable:
    a fresh placement is made then)."""
    try:
        data = json.loads(read_file(state, placement_rel(review_id), MAX_PLACEMENT_BYTES))
    except (FileNotFoundError, ReadRefused, ValueError):
        return None
    if isinstance(data, dict) and all(isinstance(data.get(k), str)
                                      for k in ("artifact_id", "rel", "text", "source")):
        return data
    return None


def drop_placement(state: Path, review_id: str) -> None:
    """Forget a placement once its review is answered."""
    with contextlib.suppress(FileNotFoundError):
        (state / placement_rel(review_id)).unlink()


def still_ours(target: BacklogMdTarget, placement: dict[str, Any]) -> bool:
    """Whether a recorded placement can be reused: same project, and its file absent or
    holding exactly the recorded text (anything else means someone else wrote there)."""
    if placement["source"] != target.source:
        return False
    try:
        held = read_file(target.root, placement["rel"], MAX_PLACEMENT_BYTES)
    except FileNotFoundError:
        return True
    except (OSError, ReadRefused):
        return False
    return bool(held == str(placement["text"]).encode("utf-8"))


def new_placement(target: BacklogMdTarget, draft: dict[str, Any], now: dt.datetime
                  ) -> dict[str, Any]:
    """A fresh placement: the next task id, its file in ``tasks/``, the file's text."""
    settings = target.settings
    task_id = written_id(settings.task_prefix, next_number(target.root, task_families(settings)))
    text = task_text(task_id, str(draft["title"]), status_word(APPROVED, settings) or "To Do",
                     backlog_md_time(now), str(draft.get("description") or ""),
                     [str(c) for c in draft.get("acceptance_criteria") or []],
                     str(draft["parent"]) if draft.get("parent") else None)
    return {"artifact_id": task_id, "rel": f"{TASKS}/{file_name(task_id, str(draft['title']))}",
            "text": text, "source": target.source}


def place_draft(state: Path, target: BacklogMdTarget, review_id: str, draft: dict[str, Any],
                now: dt.datetime | None = None) -> dict[str, Any]:
    """Write the approved draft as a task of the project; returns what the review records as
    written (``artifact_id``, ``path`` inside the repository, ``source``). Call under the
    instance's write lock."""
    placement = load_placement(state, review_id)
    if placement is None or not still_ours(target, placement):
        placement = new_placement(target, draft, now or dt.datetime.now(dt.UTC))
        atomic_write(state / placement_rel(review_id),
                     json.dumps(placement, ensure_ascii=False).encode("utf-8"), mode=0o600)
    crash_point("backlog-md-placed")
    path = contained_path(target, placement["rel"])
    atomic_write(path, placement["text"].encode("utf-8"))
    crash_point("backlog-md-written")
    return {"artifact_id": placement["artifact_id"],
            "path": f"{target.folder}/{placement['rel']}", "source": placement["source"]}
