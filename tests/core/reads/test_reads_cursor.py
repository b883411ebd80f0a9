"""Paging cursors: opaque, forward-only, refused when tampered with or stale."""

from __future__ import annotations

import base64
import json

import pytest
from revetly_core.reads.cursor import decode_cursor, encode_cursor, filter_fingerprint
from revetly_core.refusal import Refusal

FILTERS = {"status": ["done"], "pbi_type": None, "project": "acme"}


def refused(token: object, **kw: object) -> Refusal:
    args: dict[str, object] = {"read": "list_backlog", "filters": FILTERS, "revision": 3}
    args.update(kw)
    with pytest.raises(Refusal) as caught:
        decode_cursor(token, **args)  # type: ignore[arg-type]
    return caught.value


def test_a_cursor_round_trips_its_position() -> None:
    token = encode_cursor("list_backlog", FILTERS, 3, [2, "STORY", 14, "STORY-0014"])
    assert decode_cursor(token, read="list_backlog", filters=FILTERS, revision=3) == [
        2, "STORY", 14, "STORY-0014"]
    start = encode_cursor("list_backlog", FILTERS, 3, None)
    assert decode_cursor(start, read="list_backlog", filters=FILTERS, revision=3) is None


def test_a_cursor_is_url_safe_and_deterministic() -> None:
    token = encode_cursor("list_backlog", FILTERS, 3, [0, "EPIC", 1, "EPIC-1"])
    assert token == encode_cursor("list_backlog", dict(reversed(FILTERS.items())), 3,
                                  [0, "EPIC", 1, "EPIC-1"])
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_the_filter_fingerprint_ignores_key_order_but_not_values() -> None:
    assert filter_fingerprint({"a": 1, "b": 2}) == filter_fingerprint({"b": 2, "a": 1})
    assert filter_fingerprint({"a": 1}) != filter_fingerprint({"a": 2})


def _reencode(token: str, **changes: object) -> str:
    body = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    body.update(changes)
    raw = json.dumps(body, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_an_edited_position_fails_its_checksum() -> None:
    token = encode_cursor("list_backlog", FILTERS, 3, [2, "STORY", 14, "STORY-0014"])
    refusal = refused(_reencode(token, k=[2, "STORY", 99, "STORY-0099"]))
    assert refusal.code == "invalid-cursor"
    assert "checksum" in refusal.detail


@pytest.mark.parametrize("token", ["", "%%%", "bm90IGpzb24", "e30", "W10", 12, None, "A" * 5000])
def test_a_malformed_cursor_is_refused_as_invalid(token: object) -> None:
    assert refused(token).code == "invalid-cursor"


def test_a_cursor_of_another_read_is_refused_as_invalid() -> None:
    token = encode_cursor("history", FILTERS, 3, None)
    assert refused(token).code == "invalid-cursor"


def test_a_cursor_made_at_another_revision_is_stale_never_restarted() -> None:
    token = encode_cursor("list_backlog", FILTERS, 2, [0, "EPIC", 1, "EPIC-1"])
    refusal = refused(token)
    assert refusal.code == "stale-cursor"
    assert refusal.fix == "call list_backlog again without cursor"
    assert "revision 2" in refusal.detail and "revision 3" in refusal.detail


def test_a_cursor_made_for_other_filters_is_stale() -> None:
    token = encode_cursor("list_backlog", {**FILTERS, "status": ["draft"]}, 3, None)
    refusal = refused(token)
    assert refusal.code == "stale-cursor"
    assert refusal.payload()["refusal"]["argument"] == "cursor"
