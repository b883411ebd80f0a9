"""What the HTTP write adapters (GitHub, Azure DevOps, Todoist) share: one client built on
first use from the source's settings and token, the request count, a stopped request told as
a failed step, and a note found by its marker edited in place or else posted once."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from revetly_core.connectors.tracker_http import Sleep, TrackerHttp, TrackerStop
from revetly_core.connectors.tracker_read import (
    JSON_HEADERS,
    TrackerClientSettings,
    tracker_client,
)
from revetly_core.writeback.protocol import STEP_CLAIM, Landed, WritebackFailed

if TYPE_CHECKING:  # httpx loads only when a tracker is written to
    import httpx

S = TypeVar("S", bound=TrackerClientSettings)


def failed(exc: TrackerStop) -> WritebackFailed:
    """A stopped request as the step that did not land (same code, same words)."""
    return WritebackFailed(exc.code, exc.detail)


class HttpWriter(Generic[S]):
    """A write adapter's client side: ``HEADERS`` on every request, the token rendered by
    ``authorization``; ``transport`` is httpx's seam."""

    HEADERS: ClassVar[Mapping[str, str]] = JSON_HEADERS

    def __init__(self, settings: S, source: str, *, transport: httpx.BaseTransport | None,
                 environ: Mapping[str, str] = os.environ, sleep: Sleep = time.sleep) -> None:
        self.settings = settings
        self.source = source
        self.sleep = sleep
        self.transport = transport
        self.environ = environ
        self._http: TrackerHttp | None = None

    @staticmethod
    def authorization(token: str) -> str:
        """The ``Authorization`` value the tracker takes for a token (bearer unless the
        adapter says otherwise)."""
        return f"Bearer {token}"

    @property
    def requests(self) -> int:
        """Requests sent so far (a retry counts)."""
        return self._http.requests if self._http is not None else 0

    def http(self) -> TrackerHttp:
        """The adapter's one client, built on first use."""
        if self._http is None:
            self._http = tracker_client(self.settings, self.HEADERS, self.authorization,
                                        self.environ, transport=self.transport,
                                        sleep=self.sleep)
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()


def upsert_by_marker(find: Callable[[], Mapping[str, Any] | None],
                     edit: Callable[[Mapping[str, Any]], Any], post: Callable[[], Any], *,
                     post_if_missing: bool) -> tuple[str, Any] | None:
    """Edit the note ``find`` returns in place (``edited``), else ``post`` it when
    ``post_if_missing`` (``posted``), else None; a stopped request is a failed step. Answers
    the action and the tracker's answer."""
    try:
        found = find()
        if found is not None:
            return "edited", edit(found)
        if post_if_missing:
            return "posted", post()
    except TrackerStop as exc:
        raise failed(exc) from None
    return None


def claim_landed(landed: Landed, *, held: bool) -> Landed:
    """A claim note edited once the claim is no longer held is the claim ``released``."""
    if not held and landed.action == "edited":
        return Landed(STEP_CLAIM, "released", landed.ref, landed.url)
    return landed
