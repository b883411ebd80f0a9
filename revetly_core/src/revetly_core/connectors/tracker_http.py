"""What every tracker source shares over HTTP: one client with a transport seam, bounded
bodies, ``Link`` pagination, ETags, rate limits and bounded retries.

A request either answers a :class:`Page` or raises :class:`TrackerStop`, which says why the
read stops (``rate-limited``, ``server-error``, ``disconnected``, ``malformed``, ``too-large``,
``refused``) in words that never carry the token. ``resumable`` tells the connector whether the
next pass may pick up where this one stopped (a rate limit, a 5xx, a disconnect) or whether the
source itself refused (a bad token, a missing repository).
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from revetly_core.connectors.http_body import BodyTooLarge, bounded_body

if TYPE_CHECKING:  # httpx loads only when a tracker source is read
    import httpx

Sleep = Callable[[float], None]
Clock = Callable[[], float]

BACKOFF_BASE_SECONDS = 0.5
"""The first retry's wait after a 5xx or a disconnect; each retry doubles it."""


class TrackerStop(Exception):
    """A request that ended the read: ``code`` names why, ``resumable`` whether the next pass
    may continue from the cursor."""

    def __init__(self, code: str, detail: str, *, resumable: bool) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.resumable = resumable


@dataclass(frozen=True)
class Page:
    """One answered request: its JSON, the next page's URL and its ETag (None on a 304)."""

    data: Any
    next_url: str | None
    etag: str | None
    not_modified: bool = False
    headers: Mapping[str, str] = field(default_factory=dict)
    """The response's headers (case-insensitive), e.g. a continuation token."""


@dataclass
class TrackerHttp:
    """A client bound to one tracker's API root, with the token in its headers only."""

    api_url: str
    headers: Mapping[str, str]
    transport: httpx.BaseTransport | None = None
    sleep: Sleep = time.sleep
    clock: Clock = time.time
    max_wait_seconds: float = 60.0
    retries: int = 3
    max_response_bytes: int = 20_000_000
    timeout_seconds: float = 30.0
    requests: int = 0
    """Requests sent so far (a retry counts)."""
    waited_seconds: float = 0.0
    _client: httpx.Client | None = field(default=None, repr=False)

    def client(self) -> httpx.Client:
        import httpx

        if self._client is None:
            self._client = httpx.Client(base_url=self.api_url, headers=dict(self.headers),
                                        transport=self.transport, timeout=self.timeout_seconds,
                                        follow_redirects=False)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def get(self, url: str, params: Mapping[str, str] | None = None, *,
            etag: str | None = None) -> Page:
        """GET one page, waiting out rate limits up to the cap and retrying 5xx and
        disconnects with backoff; raises TrackerStop when it cannot answer."""
        return self.request("GET", url, params, etag=etag)

    def post(self, url: str, params: Mapping[str, str] | None, body: Any) -> Page:
        """POST a JSON body (a query, not a change: retried like a GET, so only for reads
        such as Azure DevOps' WIQL and work item batches)."""
        return self.request("POST", url, params, body=body)

    def post_form(self, url: str, form: Mapping[str, str]) -> Page:
        """POST a form (Todoist's sync endpoint reads with one), with GET's waits, retries
        and stops; the API must take the same request twice without harm (a read does)."""
        return self.request("POST", url, None, form=form)

    def request(self, method: str, url: str, params: Mapping[str, str] | None = None, *,
                etag: str | None = None, body: Any = None,
                form: Mapping[str, str] | None = None) -> Page:
        """One request answered as a Page, with the waits and retries of ``get``; ``body``
        goes as JSON, ``form`` as a form."""
        import httpx

        if not same_origin(url, self.api_url):
            raise TrackerStop("refused", "a page link points outside the configured api_url; "
                              "the token is sent only there", resumable=False)
        headers = {"If-None-Match": etag} if etag else {}
        attempt = 0
        while True:
            self.requests += 1
            try:
                status, resp_headers, raw, links = self._send(url, params, headers,
                                                              method=method, body=body,
                                                              form=form)
            except httpx.TransportError as exc:
                reason = f"the connection failed ({type(exc).__name__})"
                attempt = self._retry_or_stop(attempt, "disconnected", reason)
                continue
            if status == 304:
                return Page(None, None, etag, not_modified=True)
            wait = rate_limit_wait(status, resp_headers, self.clock())
            if wait is not None:
                self._wait_or_stop(wait)
                continue
            if status >= 500:
                attempt = self._retry_or_stop(attempt, "server-error",
                                              f"the server answered {status}")
                continue
            if status >= 400:
                raise TrackerStop("refused", refusal_detail(status, raw), resumable=False)
            return Page(decode_json(raw), links.get("next", {}).get("url"),
                        resp_headers.get("etag"), headers=resp_headers)

    def send(self, method: str, url: str, body: Any = None, *, idempotent: bool,
             params: Mapping[str, str] | None = None, missing_ok: bool = False,
             headers: Mapping[str, str] | None = None) -> Page:
        """A write request (POST, PATCH, PUT, DELETE) with a JSON body: rate limits waited out
        as for a read; a 5xx or a disconnect is retried only when the request is idempotent
        (a POST that may have landed is never sent twice here: its caller finds it by marker).
        ``missing_ok`` answers a 404 as a page holding None (a label already gone); ``headers``
        go with it (Azure DevOps' ``application/json-patch+json``)."""
        import httpx

        if not same_origin(url, self.api_url):
            raise TrackerStop("refused", "a write points outside the configured api_url; the "
                              "token is sent only there", resumable=False)
        attempt = 0
        while True:
            self.requests += 1
            try:
                status, resp_headers, data, _ = self._send(url, params, dict(headers or {}),
                                                           method=method, body=body)
            except httpx.TransportError as exc:
                reason = f"the connection failed ({type(exc).__name__})"
                if not idempotent:
                    raise TrackerStop("disconnected", reason, resumable=True) from None
                attempt = self._retry_or_stop(attempt, "disconnected", reason)
                continue
            wait = rate_limit_wait(status, resp_headers, self.clock())
            if wait is not None:
                self._wait_or_stop(wait)
                continue
            if status >= 500:
                reason = f"the server answered {status}"
                if not idempotent:
                    raise TrackerStop("server-error", reason, resumable=True)
                attempt = self._retry_or_stop(attempt, "server-error", reason)
                continue
            if status == 404 and missing_ok:
                return Page(None, None, None)
            if status >= 400:
                raise TrackerStop("refused", refusal_detail(status, data), resumable=False)
            return Page(decode_json(data) if data.strip() else None, None,
                        resp_headers.get("etag"))

    def _send(self, url: str, params: Mapping[str, str] | None, headers: dict[str, str], *,
              method: str = "GET", body: Any = None, form: Mapping[str, str] | None = None,
              ) -> tuple[int, httpx.Headers, bytes, dict[str, dict[str, str]]]:
        extra: dict[str, Any] = {} if body is None else {"json": body}
        if form is not None:
            extra["data"] = dict(form)
        with self.client().stream(method, url, params=params, headers=headers,
                                  **extra) as resp:
            try:
                data = bounded_body(resp, self.max_response_bytes)
            except BodyTooLarge:
                raise TrackerStop("too-large", f"a response is over the "
                                  f"{self.max_response_bytes}-byte limit",
                                  resumable=False) from None
            return resp.status_code, resp.headers, data, {
                str(k): v for k, v in resp.links.items()}

    def _retry_or_stop(self, attempt: int, code: str, reason: str) -> int:
        if attempt >= self.retries:
            raise TrackerStop(code, f"{reason}, {attempt + 1} times", resumable=True)
        self._pause(backoff_seconds(attempt))
        return attempt + 1

    def _wait_or_stop(self, wait: float) -> None:
        if wait > self.max_wait_seconds:
            raise TrackerStop("rate-limited", f"rate limited for {wait:.0f} s, over the "
                              f"{self.max_wait_seconds:.0f} s this read waits", resumable=True)
        self._pause(wait)

    def _pause(self, seconds: float) -> None:
        self.waited_seconds += seconds
        self.sleep(seconds)


def same_origin(url: str, api_url: str) -> bool:
    """Whether a request URL stays on the API root's scheme, host and port (a path relative
    to it always does), so a `Link` the server sends can never carry the token elsewhere."""
    from urllib.parse import urlsplit

    asked = urlsplit(url)
    if not asked.scheme and not asked.netloc:
        return True
    root = urlsplit(api_url)
    return (asked.scheme.lower(), asked.hostname, asked.port or _default_port(asked.scheme)) == (
        root.scheme.lower(), root.hostname, root.port or _default_port(root.scheme))


def _default_port(scheme: str) -> int | None:
    return {"http": 80, "https": 443}.get(scheme.lower())


def backoff_seconds(attempt: int) -> float:
    """The wait before retry ``attempt`` (0-based): doubling from BACKOFF_BASE_SECONDS."""
    return float(BACKOFF_BASE_SECONDS * 2 ** attempt)


def rate_limit_wait(status: int, headers: Mapping[str, str], now: float) -> float | None:
    """Seconds a 403/429 asks to wait (``Retry-After``, else ``x-ratelimit-remaining: 0`` with
    ``x-ratelimit-reset``), or a 503's ``Retry-After`` (Azure DevOps' throttling); None when the
    answer is not a rate limit."""
    if status == 503 and headers.get("retry-after") is not None:
        return _retry_after_seconds(headers["retry-after"], now)
    if status not in (403, 429):
        return None
    retry_after = headers.get("retry-after")
    if retry_after is not None:
        return _retry_after_seconds(retry_after, now)
    if headers.get("x-ratelimit-remaining") == "0":
        try:
            return max(0.0, float(headers.get("x-ratelimit-reset", "")) - now)
        except ValueError:
            return 60.0
    return 60.0 if status == 429 else None


def _retry_after_seconds(value: str, now: float) -> float:
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 60.0
    return max(0.0, when.timestamp() - now)


def decode_json(body: bytes) -> Any:
    """The body as JSON, or TrackerStop(malformed) naming where it broke."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise TrackerStop("malformed", f"a response is not JSON ({type(exc).__name__}: "
                          f"{str(exc)[:120]})", resumable=True) from None


def refusal_detail(status: int, body: bytes) -> str:
    """What a 4xx said, in one line: the status and the API's ``message`` when it gave one."""
    message = ""
    try:
        data = json.loads(body[:4096])
        said = data.get("message", data.get("error")) if isinstance(data, dict) else None
        if isinstance(said, str):  # GitHub says "message", Todoist "error"
            message = f": {said[:200]}"
    except (ValueError, RecursionError):
        pass
    hint = " (check the token and its scopes)" if status in (401, 403) else ""
    return f"the server answered {status}{message}{hint}"
