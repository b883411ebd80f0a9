"""The Todoist write adapter: a task closed or reopened, and delivery notes as comments, over
Todoist's API v1 REST endpoints through ``tracker_http`` (the token goes only to
``api_url``'s origin).

| Revetly status | the task                                                      |
|----------------|---------------------------------------------------------------|
| done           | closed (``POST /tasks/{id}/close``)                            |
| ready          | reopened (``POST /tasks/{id}/reopen``)                         |
| in-progress    | refused (``tracker-cannot-hold``): Todoist has no such state   |
| discarded, draft, parked | refused the same way (a task is open or completed)   |

Todoist shows no claim, so claims are kept in the instance's records (``keeps_claims`` is
False) — and since in-progress is refused, a Todoist task is never claimed. A delivery note
is a comment found again by its marker (``GET /comments?task_id=``), edited in place
(``POST /comments/{id}``) when found, posted (``POST /comments``) only when not.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from revetly_core.config import TodoistConnector as TodoistSettings
from revetly_core.connectors.todoist import todoist_source_id
from revetly_core.connectors.tracker_http import Sleep, TrackerStop
from revetly_core.refusal import Refusal
from revetly_core.writeback.http_writer import HttpWriter, failed, upsert_by_marker
from revetly_core.writeback.markers import carries, claim_marker
from revetly_core.writeback.protocol import (
    STEP_CLAIM,
    STEP_DELIVERY_NOTE,
    STEP_STATUS,
    Landed,
    RemoteItem,
    WritebackFailed,
)

TASK_ACTION = {"done": "close", "ready": "reopen"}
"""Revetly status -> the task endpoint that makes Todoist hold it."""
MAX_COMMENT_PAGES = 20
"""Comment pages read looking for a marker (200 a page) before the step gives up."""
COMMENT_URL = "https://app.todoist.com/app/task/{task}#comment-{comment}"


def task_action_for(status: str) -> str | None:
    """The task action (``close`` / ``reopen``) that holds a status; None when Todoist has
    none (in-progress, discarded, draft, parked)."""
    return TASK_ACTION.get(status)


def cannot_hold(item: RemoteItem, source: str, status: str) -> Refusal:
    """The refusal of a status a Todoist task cannot hold, naming it (in-progress above all:
    Todoist has no such state)."""
    why = ("Todoist has no in-progress state" if status == "in-progress"
           else "a Todoist task is open or completed")
    return Refusal("tracker-cannot-hold",
                   f"{item.artifact_id} lives on {source}, and a Todoist task cannot hold "
                   f"{status}: {why}", "set ready or done (claim the work elsewhere)",
                   {"id": item.artifact_id, "source": source, "status": status})


class TodoistWriter(HttpWriter[TodoistSettings]):
    """Writes back to one declared Todoist project; ``transport`` is httpx's seam."""

    keeps_claims = False

    def __init__(self, settings: TodoistSettings, *, transport: Any = None,
                 environ: Mapping[str, str] = os.environ, sleep: Sleep = time.sleep) -> None:
        super().__init__(settings, todoist_source_id(settings.name), transport=transport,
                         environ=environ, sleep=sleep)
        self._notes: dict[str, str] = {}

    def _task(self, item: RemoteItem) -> str:
        return f"/tasks/{quote(item.native_id, safe='')}"

    def refuse_status(self, item: RemoteItem, status: str) -> Refusal | None:
        return None if task_action_for(status) is not None else cannot_hold(
            item, self.source, status)

    def set_status(self, item: RemoteItem, status: str) -> Landed:
        """Close or reopen the task (both idempotent on Todoist: a closed task closes again
        without harm)."""
        action = task_action_for(status)
        if action is None:  # refused before any write; never reached
            raise WritebackFailed("refused", f"Todoist has no state for {status}")
        try:
            self.http().send("POST", f"{self._task(item)}/{action}", idempotent=True)
        except TrackerStop as exc:
            raise failed(exc) from None
        return Landed(STEP_STATUS, "set", item.native_id,
                      f"https://app.todoist.com/app/task/{item.native_id}",
                      "closed" if action == "close" else "reopened")

    def find_comment(self, item: RemoteItem, marker: str) -> dict[str, Any] | None:
        """The task's comment carrying the marker (oldest first), or None."""
        cursor: str | None = None
        for _ in range(MAX_COMMENT_PAGES):
            params = {"task_id": item.native_id, "limit": "200"}
            if cursor:
                params["cursor"] = cursor
            data = self.http().get("/comments", params).data
            if not isinstance(data, dict) or not isinstance(data.get("results"), list):
                raise TrackerStop("malformed", "the comments listing has no results list",
                                  resumable=True)
            for comment in data["results"]:
                if isinstance(comment, dict) and carries(comment.get("content"), marker):
                    return comment
            nxt = data.get("next_cursor")
            if not isinstance(nxt, str) or not nxt:
                return None
            cursor = nxt
        raise TrackerStop("too-large", f"no marker in the first {MAX_COMMENT_PAGES} pages of "
                          "comments", resumable=False)

    def upsert_comment(self, item: RemoteItem, text: str, marker: str, step: str, *,
                       post_if_missing: bool = True) -> Landed:
        """Edit the comment carrying ``marker`` in place, else post it (once)."""
        known = self._notes.get(marker)
        wrote = upsert_by_marker(
            lambda: {"id": known} if known else self.find_comment(item, marker),
            lambda found: self.http().send(
                "POST", f"/comments/{quote(str(found['id']), safe='')}", {"content": text},
                idempotent=True).data,
            lambda: self.http().send("POST", "/comments",
                                     {"task_id": item.native_id, "content": text},
                                     idempotent=False).data,
            post_if_missing=post_if_missing)
        if wrote is None:
            return Landed(step, "unchanged", detail="no note to release")
        action, data = wrote
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise WritebackFailed("malformed", "the comment answer has no id")
        self._notes[marker] = data["id"]
        return Landed(step, action, data["id"],
                      COMMENT_URL.format(task=item.native_id, comment=data["id"]))

    def keep_claim(self, item: RemoteItem, text: str, *, held: bool) -> Landed:
        """The claim note, should a hook ask (this adapter keeps no claims, so it does not)."""
        return self.upsert_comment(item, text, claim_marker(item.artifact_id), STEP_CLAIM,
                                   post_if_missing=held)

    def post_note(self, item: RemoteItem, text: str, *, marker: str) -> Landed:
        return self.upsert_comment(item, text, marker, STEP_DELIVERY_NOTE)
