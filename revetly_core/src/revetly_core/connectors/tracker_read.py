"""What every tracker adapter (a connector reading, a writer writing back) does the same way
around :class:`TrackerHttp`: the client built from the source's settings and its token, and a
stopped read told as a warning on the batch."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
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
    def token_file(self) -> str | None: ...
    @property
    def max_wait_seconds(self) -> int: ...
    @property
    def retries(self) -> int: ...
    @property
    def max_response_bytes(self) -> int: ...


def bearer(token: str) -> str:
    """The ``Authorization`` value of a bearer token (GitHub, Todoist)."""
    return f"Bearer {token}"


MAX_TOKEN_FILE_BYTES = 64 * 1024
"""A credential file larger than this holds no token: it is refused unread."""


class TokenFileRefused(ValueError):
    """A declared credential file that cannot be used: missing, readable by others, too large
    or empty. Its message names the file and the fix, never the file's content."""


def token_file_problem(mode: int, size: int) -> str | None:
    """Why a credential file with this mode and size is refused (None: usable): it must be a
    regular file only its owner can read or write (0600 or stricter), holding a token."""
    if not stat.S_ISREG(mode):
        return "is not a regular file"
    if mode & 0o077:
        return f"is open to others (mode {stat.S_IMODE(mode):04o}); chmod 600 it"
    if size > MAX_TOKEN_FILE_BYTES:
        return f"is {size} bytes, more than a token ({MAX_TOKEN_FILE_BYTES} at most)"
    if size == 0:
        return "is empty"
    return None


def read_token_file(path: str) -> str:
    """The token a credential file holds (surrounding space stripped), checked by
    :func:`token_file_problem` before a byte is read."""
    where = Path(path).expanduser()
    try:
        with open(where, "rb") as handle:
            info = os.fstat(handle.fileno())
            problem = token_file_problem(info.st_mode, info.st_size)
            data = b"" if problem else handle.read(MAX_TOKEN_FILE_BYTES + 1)
    except OSError as exc:
        raise TokenFileRefused(f"the token file {where} cannot be read ({exc.strerror})") from None
    token = data.decode("utf-8", "replace").strip()
    if problem is None and not token:
        problem = "holds only space"
    if problem is not None:
        raise TokenFileRefused(f"the token file {where} {problem}")
    return token


def source_token(settings: TrackerClientSettings, environ: Mapping[str, str]) -> str | None:
    """The token of a tracker source: its ``token_env`` variable's value, else the content of its
    ``token_file``, else None (anonymous)."""
    if settings.token_env:
        return environ.get(settings.token_env) or None
    if settings.token_file:
        return read_token_file(settings.token_file)
    return None


def tracker_client(settings: TrackerClientSettings, headers: Mapping[str, str],
                   authorization: Callable[[str], str], environ: Mapping[str, str], *,
                   transport: httpx.BaseTransport | None = None, sleep: Sleep = time.sleep,
                   clock: Clock = time.time) -> TrackerHttp:
    """A client for ``api_url`` with ``headers``, carrying the source's token
    (:func:`source_token`) as ``authorization`` renders it."""
    sent = dict(headers)
    token = source_token(settings, environ)
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
