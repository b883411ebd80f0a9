"""What every tracker adapter (a connector reading, a writer writing back) does the same way
around :class:`TrackerHttp`: the client built from the source's settings and its token, and a
stopped read told as a warning on the batch."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from revetly_core.connectors.base import FileProblem, KnownArtifact, Removal, SourceBatch
from revetly_core.connectors.tracker_http import Clock, Sleep, TrackerHttp, TrackerStop

if TYPE_CHECKING:  # httpx loads only when a tracker source is read
    import httpx


JSON_HEADERS: Mapping[str, str] = MappingProxyType({"Accept": "application/json",
                                                   "User-Agent": "revetly"})
"""What a tracker client sends on every request unless its tracker asks for more."""


class TrackerClientSettings(Protocol):
    """The settings every tracker source declares for its HTTP client."""

    @property
    def api_url(self) -> str: ...
    @property
    def token_env(self) -> str | None: ...
    @property
    def max_wait_seconds(self) -> int: ...
    @property
    def retries(self) -> int: ...
    @property
    def max_response_bytes(self) -> int: ...


def bearer(token: str) -> str:
    """The ``Authorization`` value of a bearer token (GitHub, Todoist)."""
    return f"Bearer {token}"


def tracker_client(settings: TrackerClientSettings, headers: Mapping[str, str],
                   authorization: Callable[[str], str], environ: Mapping[str, str], *,
                   transport: httpx.BaseTransport | None = None, sleep: Sleep = time.sleep,
                   clock: Clock = time.time) -> TrackerHttp:
    """A client for ``api_url`` with ``headers``, carrying the token as ``authorization``
    renders it when the settings' token variable is set in ``environ``."""
    sent = dict(headers)
    token = environ.get(settings.token_env) if settings.token_env else None
    if token:
        sent["Authorization"] = authorization(token)
    return TrackerHttp(settings.api_url, sent, transport=transport, sleep=sleep, clock=clock,
                       max_wait_seconds=settings.max_wait_seconds, retries=settings.retries,
                       max_response_bytes=settings.max_response_bytes)


class TrackerSource:
    """What a tracker connector holds besides its settings: its ids, the seams it reads
    through (httpx's transport, the sleep and clock of its retries, the environment its token
    is in) and the count of the requests its last read sent."""

    def __init__(self, source_id: str, project: str, *,
                 transport: httpx.BaseTransport | None, sleep: Sleep, clock: Clock,
                 environ: Mapping[str, str]) -> None:
        self.source_id = source_id
        self.project = project
        self.transport = transport
        self.sleep = sleep
        self.clock = clock
        self.environ = environ
        self.requests = 0
        """Requests the last read sent (a retry counts)."""

    def client(self, settings: TrackerClientSettings, headers: Mapping[str, str],
               authorization: Callable[[str], str]) -> TrackerHttp:
        """A client over this source's seams (see :func:`tracker_client`)."""
        return tracker_client(settings, headers, authorization, self.environ,
                              transport=self.transport, sleep=self.sleep, clock=self.clock)

    def done_with(self, http: TrackerHttp) -> None:
        """End a read's client: count its requests, close it."""
        self.requests = http.requests
        http.close()


def stop_words(stop: TrackerStop, what: str = "the read stopped") -> str:
    """Why a read stopped and what comes next: the next pass resumes, or the cause is fixed."""
    return (f"{what}: {stop.detail}; "
            + ("the next pass resumes where it stopped" if stop.resumable
               else "fix the cause, then sync again"))


def record_stop(batch: SourceBatch, path: str, stop: TrackerStop, *,
                what: str = "the read stopped") -> None:
    """Tell a stopped read on its batch: partial when the next pass resumes, the stop as a
    gap, and a warning named ``tracker-<code>`` on ``path``."""
    batch.partial = batch.partial or stop.resumable
    batch.gaps.append(f"{stop.code}: {stop.detail}")
    batch.problems.append(FileProblem(batch.source, path, f"tracker-{stop.code}",
                                      stop_words(stop, what), severity="warning"))


def removals_of_unseen(known: Mapping[str, KnownArtifact], seen: Iterable[str], now: str,
                       reason: str) -> list[Removal]:
    """A removal (found ``now``) of each item the store holds that a whole listing no
    longer named, in id order."""
    listed = set(seen)
    return [Removal(k.id, now, "found", reason)
            for k in sorted(known.values(), key=lambda k: k.id)
            if not k.deleted and k.id not in listed]


def held_numbers(known: Mapping[str, KnownArtifact]) -> set[int]:
    """The tracker numbers of the items the store holds (the digits after the id's last
    dash)."""
    return {int(k.id.rsplit("-", 1)[1]) for k in known.values()
            if k.id.rsplit("-", 1)[-1].isdigit()}
