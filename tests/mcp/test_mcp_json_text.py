"""The text content is the bytes `revetly … --json` prints (json.dumps, indent 2, UTF-8 kept),
whichever encoder produced it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_mcp.json_text import indented_json
from revetly_mcp.schemas import payload_text

SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats() | st.text(alphabet=st.characters(codec=None)))
"""Every scalar json.dumps writes: huge integers, NaN and infinities, lone surrogates too."""
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(), inner, max_size=4), max_leaves=25)


def printed(value: Any) -> str:
    """What revetly_cli prints for a payload (revetly_cli/output.py)."""
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_indented_json_is_the_bytes_json_dumps_writes(value: Any) -> None:
    assert indented_json(value) == printed(value)


def test_a_value_msgspec_cannot_read_falls_back_to_the_same_bytes() -> None:
    for value in ({"score": float("nan")}, {"limit": float("inf")}, {"title": "half \ud800 pair"}):
        assert indented_json(value) == printed(value)


def test_payload_text_keeps_unicode_and_key_order() -> None:
    payload = {"z": "épée — ✓", "a": [], "m": {}, "n": [1.5, 1e-05, 10**20]}
    text = payload_text(payload)
    assert text == printed(payload)
    assert list(json.loads(text)) == ["z", "a", "m", "n"]
