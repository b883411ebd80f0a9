"""Idempotency keys: a retry returns the original record, a different request under a key is refused."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from revetly_core.refusal import Refusal

_KEY = re.compile(r"^[\x21-\x7e]{1,128}$")


def check_key(key: str) -> str:
    """An idempotency key is 1-128 printable ASCII characters without spaces."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise Refusal("bad_idempotency_key", "an idempotency key is 1-128 printable ASCII characters",
                      "use a request id such as request-1")
    return key


def record_id_for(prefix: str, principal_id: str, scope_key: str, kind: str, key: str) -> str:
    """The record id a key maps to, per principal, scope and kind (so keys never collide across them)."""
    digest = hashlib.sha256("\x00".join((principal_id, scope_key, kind, key)).encode()).hexdigest()
    return f"{prefix}-{digest[:32]}"


def request_digest(request: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a request: what a retry must repeat exactly."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def replay_or_refuse(existing: dict[str, Any], digest: str) -> dict[str, Any]:
    """Same request under the key: the original record. A different one: idempotency_conflict."""
    if existing.get("request_sha256") != digest:
        raise Refusal("idempotency_conflict",
                      "this idempotency key was already used for a different request",
                      "use a new key for a deliberate new request")
    return existing
