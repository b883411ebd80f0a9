"""Opaque, forward-only paging cursors for the listing reads.

A cursor is the urlsafe base64 (unpadded) of one compact JSON object:

    {"v": 1, "r": <read name>, "f": <filter fingerprint>, "c": <corpus revision>,
     "k": <last served sort key, or null before the first row>, "s": <checksum>}

``s`` is the first eight hex digits of sha256 over the same object without ``s``. It is not
a secret and authenticates nothing: it only lets a mangled or hand-edited token be told
apart from one a page served, so the first is refused as ``invalid-cursor`` rather than read
as a position. A well-formed cursor made at another corpus revision, or under other filters,
is refused as ``stale-cursor``: the listing is never restarted behind the caller's back.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from revetly_core.refusal import Refusal

CURSOR_VERSION = 1
MAX_CURSOR_CHARS = 4_096
"""A token longer than this was not made here; it is refused before it is decoded."""

_FIELDS = frozenset({"v", "r", "f", "c", "k", "s"})


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def filter_fingerprint(filters: Mapping[str, Any]) -> str:
    """A short digest of the filters a listing was asked with (key order does not matter)."""
    return hashlib.sha256(_compact(dict(filters)).encode("ascii")).hexdigest()[:16]


def _checksum(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(_compact(dict(body)).encode("ascii")).hexdigest()[:8]


def encode_cursor(
    read: str, filters: Mapping[str, Any], revision: int, after: list[Any] | None
) -> str:
    """The token that resumes ``read`` after the row whose sort key is ``after``."""
    body: dict[str, Any] = {
        "v": CURSOR_VERSION,
        "r": read,
        "f": filter_fingerprint(filters),
        "c": revision,
        "k": after,
    }
    body["s"] = _checksum(body)
    raw = _compact(body).encode("ascii")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def invalid_cursor(read: str, why: str) -> Refusal:
    """The refusal for a token that is not a cursor ``read`` served, saying why."""
    return Refusal(
        "invalid-cursor",
        f"cursor is not one {read} served ({why})",
        f"pass next_cursor exactly as a {read} page served it, or call {read} again without cursor",
        {"argument": "cursor"},
    )


def decode_cursor(
    token: object, *, read: str, filters: Mapping[str, Any], revision: int
) -> list[Any] | None:
    """The sort key a cursor resumes after (None: before the first row), or a refusal."""
    if not isinstance(token, str) or not token or len(token) > MAX_CURSOR_CHARS:
        raise invalid_cursor(read, "not a cursor string")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        body = json.loads(raw.decode("ascii"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise invalid_cursor(read, "it does not decode") from None
    if not isinstance(body, dict) or set(body) != _FIELDS:
        raise invalid_cursor(read, "it does not decode")
    given = body.pop("s")
    if not isinstance(given, str) or given != _checksum(body):
        raise invalid_cursor(read, "its checksum does not match")
    if body["v"] != CURSOR_VERSION or body["r"] != read:
        raise invalid_cursor(read, "it was made for another read")
    after = body["k"]
    if after is not None and not isinstance(after, list):
        raise invalid_cursor(read, "it holds no position")
    made_at = body["c"]
    if body["f"] != filter_fingerprint(filters):
        raise Refusal(
            "stale-cursor",
            f"cursor was made for other filters than this {read} call names",
            f"call {read} again without cursor",
            {"argument": "cursor"},
        )
    if made_at != revision:
        raise Refusal(
            "stale-cursor",
            f"cursor was made at corpus revision {made_at}; CONTEXT is now at revision {revision}",
            f"call {read} again without cursor",
            {"argument": "cursor"},
        )
    return after
