"""The Azure DevOps write adapter: a work item's state, one claim comment edited in place, and
delivery notes as comments — over the REST API through ``tracker_http`` (the personal access
token goes only to ``api_url``'s origin).

| Revetly status | the work item                                               |
|----------------|-------------------------------------------------------------|
| in-progress    | its type's first state in the InProgress category           |
| ready          | its type's first state in the Proposed category             |
| done           | its type's first state in the Completed category            |
| discarded      | its type's first state in the Removed category              |
| draft, parked  | refused (``tracker-cannot-hold``)                           |

A type with no state in the category a status needs is refused by name. The token needs the
Work Items (Read & Write) scope.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from revetly_core.config import AzureDevOpsConnector as AzureDevOpsSettings
from revetly_core.connectors.azure_devops import (
    API_VERSION,
    BadItem,
    azure_devops_source_id,
    basic_auth,
    continuation_token,
    first_state_of_category,
    states_categories,
    web_url,
)
from revetly_core.connectors.tracker_http import Sleep, TrackerStop
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

COMMENTS_API_VERSION = "7.1-preview.4"
"""The work item comments API is a preview in 7.1."""
JSON_PATCH = "application/json-patch+json"
CATEGORY_OF_STATUS = {"in-progress": "InProgress", "ready": "Proposed", "done": "Completed",
                      "discarded": "Removed"}
"""Revetly status -> the state category whose first state holds it."""
MAX_COMMENT_PAGES = 50
"""Comment pages read looking for a marker (200 a page) before the step gives up."""
COMMENTS_PAGE = "200"


def category_for(status: str) -> str | None:
    """The state category that holds a status; None when Azure DevOps has none (draft,
    parked)."""
    return CATEGORY_OF_STATUS.get(status)


def state_for(status: str, category_states: Mapping[str, str]) -> str | None:
    """The state a status moves an item to: its type's first state in the status's category,
    or None when the type has none."""
    category = category_for(status)
    return category_states.get(category) if category is not None else None


def known_category_states(item: RemoteItem) -> dict[str, str] | None:
    """The category -> first state table the read stored with the item, or None when the read
    did not know its type's states."""
    value = item.metadata.get("category_states")
    if not isinstance(value, Mapping) or not value:
        return None
    return {str(k): str(v) for k, v in value.items()}


def state_patch(state: str) -> list[dict[str, Any]]:
    """The JSON Patch document that sets a work item's state."""
    return [{"op": "add", "path": "/fields/System.State", "value": state}]


class AzureDevOpsWriter(HttpWriter[AzureDevOpsSettings]):
    """Writes back to one declared project; ``transport`` is httpx's seam."""

    keeps_claims = True
    authorization = staticmethod(basic_auth)

    def __init__(self, settings: AzureDevOpsSettings, *, transport: Any = None,
                 environ: Mapping[str, str] = os.environ, sleep: Sleep = time.sleep) -> None:
        super().__init__(settings, azure_devops_source_id(settings.name), transport=transport,
                         environ=environ, sleep=sleep)
        self._comment_of: dict[str, str] = {}

    def _wit(self, rest: str) -> str:
        s = self.settings
        return f"/{quote(s.organization)}/{quote(s.project)}/_apis/wit/{rest}"

    def _item(self, item: RemoteItem) -> str:
        return self._wit(f"workitems/{quote(item.native_id, safe='')}")

    def _comments(self, item: RemoteItem) -> str:
        return self._wit(f"workItems/{quote(item.native_id, safe='')}/comments")

    def refuse_status(self, item: RemoteItem, status: str) -> Refusal | None:
        category = category_for(status)
        if category is None:
            return Refusal("tracker-cannot-hold",
                           f"{item.artifact_id} lives on {self.source}, and an Azure DevOps "
                           f"work item has no state for {status}",
                           "set in-progress, ready, done or discarded",
                           {"id": item.artifact_id, "source": self.source, "status": status})
        table = known_category_states(item)
        if table is None and item.native_type:
            try:  # read without its type's states: ask them (a read, never a change)
                table = self._states_now(item)
            except TrackerStop:
                table = None  # unknown: set_status asks again and names what it finds
        if table is not None and category not in table:
            kind = item.native_type or item.type
            return Refusal("tracker-cannot-hold",
                           f"{item.artifact_id} is a {kind!r} on {self.source}, and that work "
                           f"item type has no state in the {category} category, so it cannot "
                           f"hold {status}",
                           f"add a {category} state to the {kind!r} type in the process, or "
                           "set another status",
                           {"id": item.artifact_id, "source": self.source, "status": status,
                            "work_item_type": kind, "category": category})
        return None

    def _states_now(self, item: RemoteItem) -> dict[str, str]:
        """The category -> first state table of the item's type, asked of the project."""
        kind = item.native_type or ""
        page = self.http().get(self._wit(f"workitemtypes/{quote(kind, safe='')}/states"),
                               {"api-version": API_VERSION})
        try:
            return first_state_of_category(states_categories(page.data))
        except BadItem as exc:
            raise TrackerStop("malformed", f"the states of {kind!r}: {exc}",
                              resumable=True) from None

    def set_status(self, item: RemoteItem, status: str) -> Landed:
        """PATCH the work item's ``System.State`` to the state that holds ``status``."""
        try:
            table = known_category_states(item)
            if table is None or category_for(status) not in table:
                table = self._states_now(item)
            state = state_for(status, table)
            if state is None:
                raise WritebackFailed("refused", f"the work item type {item.native_type!r} has "
                                      f"no {category_for(status)} state for {status}")
            data = self.http().send("PATCH", self._item(item), state_patch(state),
                                    idempotent=True, params={"api-version": API_VERSION},
                                    headers={"Content-Type": JSON_PATCH}).data
        except TrackerStop as exc:
            raise failed(exc) from None
        if not isinstance(data, dict) or not isinstance(data.get("fields"), dict):
            raise WritebackFailed("malformed", "the work item answer has no fields")
        now = data["fields"].get("System.State")
        return Landed(STEP_STATUS, "set", item.native_id,
                      web_url(self.settings, int(item.native_id)) if item.native_id.isdigit()
                      else None, f"state {now if isinstance(now, str) else state}")

    def find_comment(self, item: RemoteItem, marker: str) -> dict[str, Any] | None:
        """The work item's comment carrying the marker (oldest first), or None."""
        params: dict[str, str] = {"api-version": COMMENTS_API_VERSION, "$top": COMMENTS_PAGE,
                                  "order": "asc"}
        for _ in range(MAX_COMMENT_PAGES):
            page = self.http().get(self._comments(item), params)
            comments = page.data.get("comments") if isinstance(page.data, dict) else None
            if not isinstance(comments, list):
                raise TrackerStop("malformed", "the comments answer has no 'comments' list",
                                  resumable=True)
            for comment in comments:
                if isinstance(comment, dict) and carries(comment.get("text"), marker):
                    return comment
            token = continuation_token(page.headers, page.data)
            if token is None:
                return None
            params = {**params, "continuationToken": token}
        raise TrackerStop("too-large", f"no marker in the first {MAX_COMMENT_PAGES} pages of "
                          "comments", resumable=False)

    def upsert_comment(self, item: RemoteItem, text: str, marker: str, step: str, *,
                       post_if_missing: bool = True) -> Landed:
        """Edit the comment carrying ``marker`` in place, else post it (once), as Markdown."""
        params = {"format": "markdown", "api-version": COMMENTS_API_VERSION}
        known = self._comment_of.get(marker)
        wrote = upsert_by_marker(
            lambda: {"id": known} if known else self.find_comment(item, marker),
            lambda found: self.http().send("PATCH", f"{self._comments(item)}/{found['id']}",
                                           {"text": text}, idempotent=True,
                                           params=params).data,
            lambda: self.http().send("POST", self._comments(item), {"text": text},
                                     idempotent=False, params=params).data,
            post_if_missing=post_if_missing)
        if wrote is None:
            return Landed(step, "unchanged", detail="no claim comment to release")
        action, data = wrote
        if not isinstance(data, dict) or not isinstance(data.get("id"), int):
            raise WritebackFailed("malformed", "the comment answer has no id")
        self._comment_of[marker] = str(data["id"])
        url = data.get("url")
        return Landed(step, action, str(data["id"]), url if isinstance(url, str) else None)

    def keep_claim(self, item: RemoteItem, text: str, *, held: bool) -> Landed:
        return claim_landed(self.upsert_comment(item, text, claim_marker(item.artifact_id),
                                                STEP_CLAIM, post_if_missing=held), held=held)

    def post_note(self, item: RemoteItem, text: str, *, marker: str) -> Landed:
        return self.upsert_comment(item, text, marker, STEP_DELIVERY_NOTE)
