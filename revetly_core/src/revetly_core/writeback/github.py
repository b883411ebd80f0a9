"""The GitHub write adapter: an issue's state and in-progress label, one claim comment edited
in place, and delivery notes as comments — over the REST API through ``tracker_http`` (the
token goes only to ``api_url``'s origin).

| Revetly status | the issue                                          |
|----------------|----------------------------------------------------|
| in-progress    | open, with the in-progress label                   |
| ready          | open, without it                                   |
| done           | closed as completed, without it                    |
| discarded      | closed as not planned, without it                  |
| draft, parked  | refused (``tracker-cannot-hold``): an open issue reads back as ready |

The token needs Issues read and write on the repository.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from revetly_core.config import GitHubConnector as GitHubSettings
from revetly_core.connectors.github import GITHUB_HEADERS, github_source_id
from revetly_core.connectors.tracker_http import Page, Sleep, TrackerStop
from revetly_core.refusal import Refusal
from revetly_core.writeback.http_writer import HttpWriter, claim_landed, failed, upsert_by_marker
from revetly_core.writeback.markers import carries, claim_marker
from revetly_core.writeback.protocol import (
    STEP_CLAIM,
    STEP_DELIVERY_NOTE,
    STEP_STATUS,
    Landed,
    RemoteItem,
    WritebackFailed,
)

ISSUE_STATE: dict[str, tuple[str, str | None]] = {
    "in-progress": ("open", None), "ready": ("open", None),
    "done": ("closed", "completed"), "discarded": ("closed", "not_planned"),
}
"""Revetly status -> (the issue's state, its state_reason)."""
MAX_COMMENT_PAGES = 50
"""Comment pages read looking for a marker (100 a page) before the step gives up."""


def issue_state_for(status: str) -> tuple[str, str | None] | None:
    """The issue state (and state_reason) that holds a status; None when GitHub has none."""
    return ISSUE_STATE.get(status)


def wants_label(status: str) -> bool:
    """Only in-progress carries the in-progress label."""
    return status == "in-progress"


def has_label(labels: object, name: str) -> bool:
    """Whether an issue's ``labels`` hold ``name`` (GitHub compares label names case-blind)."""
    if not isinstance(labels, list):
        return False
    wanted = name.casefold()
    return any(isinstance(lb, dict) and str(lb.get("name", "")).casefold() == wanted
               for lb in labels)


class GitHubWriter(HttpWriter[GitHubSettings]):
    """Writes back to one declared repository; ``transport`` is httpx's seam."""

    keeps_claims = True
    HEADERS = GITHUB_HEADERS

    def __init__(self, settings: GitHubSettings, *, transport: Any = None,
                 environ: Mapping[str, str] = os.environ, sleep: Sleep = time.sleep) -> None:
        super().__init__(settings, github_source_id(settings.name), transport=transport,
                         environ=environ, sleep=sleep)
        self._listed: dict[str, list[dict[str, Any]]] = {}
        """Issue number -> its comments, as listed (and written) during this write."""

    def _issue(self, item: RemoteItem) -> str:
        return f"/repos/{self.settings.repo}/issues/{quote(item.native_id, safe='')}"

    def refuse_status(self, item: RemoteItem, status: str) -> Refusal | None:
        if issue_state_for(status) is not None:
            return None
        return Refusal("tracker-cannot-hold",
                       f"{item.artifact_id} lives on {self.source}, and a GitHub issue cannot "
                       f"hold {status}: it is open or closed, and an open issue reads back as "
                       "ready", "set in-progress, ready, done or discarded",
                       {"id": item.artifact_id, "source": self.source, "status": status})

    def set_status(self, item: RemoteItem, status: str) -> Landed:
        """PATCH the issue's state, then add or remove the in-progress label as needed."""
        held = issue_state_for(status)
        if held is None:  # refused before any write; never reached
            raise WritebackFailed("refused", f"GitHub has no state for {status}")
        state, reason = held
        body: dict[str, Any] = {"state": state}
        if reason is not None:
            body["state_reason"] = reason
        label = self.settings.in_progress_label
        try:
            issue = self.http().send("PATCH", self._issue(item), body, idempotent=True).data
            present = has_label(issue.get("labels") if isinstance(issue, dict) else None,
                                label)
            if wants_label(status) and not present:
                self.http().send("POST", f"{self._issue(item)}/labels", {"labels": [label]},
                                 idempotent=True)
            elif not wants_label(status) and present:
                self.http().send("DELETE", f"{self._issue(item)}/labels/{quote(label, safe='')}",
                                 idempotent=True, missing_ok=True)
        except TrackerStop as exc:
            raise failed(exc) from None
        words = f"{state}" + (f" ({reason})" if reason else "") + (
            f", labelled {label}" if wants_label(status) else "")
        return Landed(STEP_STATUS, "set", item.native_id,
                      issue.get("html_url") if isinstance(issue, dict) else None, words)

    def comments(self, item: RemoteItem) -> list[dict[str, Any]]:
        """The issue's comments, listed once per write (100 a page, oldest first)."""
        held = self._listed.get(item.native_id)
        if held is not None:
            return held
        found: list[dict[str, Any]] = []
        url: str | None = f"{self._issue(item)}/comments"
        params: dict[str, str] | None = {"per_page": "100"}
        for _ in range(MAX_COMMENT_PAGES):
            page: Page = self.http().get(url or "", params)
            if not isinstance(page.data, list):
                raise TrackerStop("malformed", "the comments listing is not a list",
                                  resumable=True)
            found += [c for c in page.data if isinstance(c, dict)]
            url, params = page.next_url, None
            if url is None:
                self._listed[item.native_id] = found
                return found
        raise TrackerStop("too-large", f"the issue has over {MAX_COMMENT_PAGES} pages of "
                          "comments; its notes are not looked for", resumable=False)

    def find_comment(self, item: RemoteItem, marker: str) -> dict[str, Any] | None:
        """The issue's first comment carrying the marker, or None."""
        return next((c for c in self.comments(item) if carries(c.get("body"), marker)), None)

    def upsert_comment(self, item: RemoteItem, text: str, marker: str, step: str, *,
                       post_if_missing: bool = True) -> Landed:
        """Edit the comment carrying ``marker`` in place, else post it (once)."""
        wrote = upsert_by_marker(
            lambda: self.find_comment(item, marker),
            lambda found: self.http().send(
                "PATCH", f"/repos/{self.settings.repo}/issues/comments/{found['id']}",
                {"body": text}, idempotent=True).data,
            lambda: self.http().send("POST", f"{self._issue(item)}/comments",
                                     {"body": text}, idempotent=False).data,
            post_if_missing=post_if_missing)
        if wrote is None:
            return Landed(step, "unchanged", detail="no claim comment to release")
        action, data = wrote
        if not isinstance(data, dict) or not isinstance(data.get("id"), int):
            raise WritebackFailed("malformed", "the comment answer has no id")
        listed = self._listed.get(item.native_id)
        if listed is not None:
            self._listed[item.native_id] = [c for c in listed if c.get("id") != data["id"]] \
                + [data]
        url = data.get("html_url")
        return Landed(step, action, str(data["id"]), url if isinstance(url, str) else None)

    def keep_claim(self, item: RemoteItem, text: str, *, held: bool) -> Landed:
        return claim_landed(self.upsert_comment(item, text, claim_marker(item.artifact_id),
                                                STEP_CLAIM, post_if_missing=held), held=held)

    def post_note(self, item: RemoteItem, text: str, *, marker: str) -> Landed:
        return self.upsert_comment(item, text, marker, STEP_DELIVERY_NOTE)


def label_exists(settings: GitHubSettings, *, transport: Any = None,
                 environ: Mapping[str, str] = os.environ) -> bool | None:
    """Whether the repository has its in-progress label (GET the label); None when GitHub
    could not be asked (no answer, a refusal)."""
    writer = GitHubWriter(settings, transport=transport, environ=environ)
    http = writer.http()
    http.retries = 0
    http.max_wait_seconds = 0
    try:
        page = http.send("GET", f"/repos/{settings.repo}/labels/"
                         f"{quote(settings.in_progress_label, safe='')}", idempotent=True,
                         missing_ok=True)
    except TrackerStop:
        return None
    finally:
        writer.close()
    return page.data is not None
