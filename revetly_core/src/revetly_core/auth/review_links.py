"""The URL gate's one-time links: one live nonce per pending review, minted at each raise.

A link is `<base>/review/REV-…?nonce=…`. Minting a review's link again (a re-raise) replaces
the earlier one, so the old nonce answers nothing; a decision spends the link. Links live in
the serving process only: a restart leaves every review pending and linkless, and any session
that renders a gate raises it again for a fresh link (ADR 0027).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

REVIEW_PATH = "/review"
"""Where the review page is served, under the endpoint's public base."""
LINK_TTL = 7 * 24 * 3600.0
"""Seconds a link stays live without a decision or a re-raise (then the review is raised again)."""
NONCE_BYTES = 32


@dataclass
class ReviewLink:
    """One minted link: the review, its nonce, the elicitation it was handed by, and the
    session that raised it (an opaque handle the shell keeps to send elicitation/complete)."""

    review_id: str
    nonce: str
    elicitation_id: str
    minted_at: float
    session: Any = field(default=None, compare=False, repr=False)


def review_base_url(resource: str, endpoint_path: str) -> str:
    """The page's public base: the resource URL without the endpoint's own path."""
    parts = urlsplit(resource)
    path = parts.path.rstrip("/")
    suffix = endpoint_path.rstrip("/")
    if suffix and path.endswith(suffix):
        path = path[: -len(suffix)]
    return f"{parts.scheme}://{parts.netloc}{path}"


def review_link_url(base: str, link: ReviewLink) -> str:
    """The one-time address handed to the human: `<base>/review/REV-…?nonce=…`."""
    return f"{base.rstrip('/')}{REVIEW_PATH}/{quote(link.review_id)}?nonce={quote(link.nonce)}"


def same_secret(given: str | None, held: str) -> bool:
    """A presented nonce or token equals the held one (compared in constant time)."""
    return isinstance(given, str) and hmac.compare_digest(given.encode(), held.encode())


class ReviewLinks:
    """The live links of one serving process, at most one per review."""

    def __init__(self, *, ttl: float = LINK_TTL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        self._links: dict[str, ReviewLink] = {}
        self._lock = threading.Lock()

    def mint(self, review_id: str, session: Any = None) -> ReviewLink:
        """A fresh link for the review, replacing (and so killing) any earlier one."""
        link = ReviewLink(review_id, secrets.token_urlsafe(NONCE_BYTES),
                          f"revetly-review-{secrets.token_hex(8)}", self.clock(), session)
        with self._lock:
            self._links[review_id] = link
        return link

    def live(self, review_id: str, nonce: str | None) -> ReviewLink | None:
        """The review's link if this nonce is its current one and has not expired, else None."""
        with self._lock:
            link = self._links.get(review_id)
            if link is None or not same_secret(nonce, link.nonce):
                return None
            if self.clock() - link.minted_at > self.ttl:
                del self._links[review_id]
                return None
            return link

    def spend(self, review_id: str, nonce: str | None) -> ReviewLink | None:
        """Take the live link out (a decision was recorded); None if it was not live."""
        with self._lock:
            link = self._links.get(review_id)
            if link is None or not same_secret(nonce, link.nonce):
                return None
            del self._links[review_id]
        return link if self.clock() - link.minted_at <= self.ttl else None
