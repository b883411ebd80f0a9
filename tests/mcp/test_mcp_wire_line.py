"""The stdio transport's line for each outgoing message: the JSON pydantic wrote, faster."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from pydantic_core import PydanticSerializationError
from revetly_mcp.wire_line import message_line, response_fields

SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text())
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(), inner, max_size=4), max_leaves=25)
NO_FLOATS = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=25)


def pydantic_line(message: Any) -> bytes:
    """What the transport wrote before (and still writes for every other message)."""
    text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
    return text.encode("utf-8") + b"\n"


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), VALUES, max_size=5), st.integers(0, 2**53) | st.text(max_size=8))
def test_a_response_reads_back_as_the_value_pydantic_wrote(result: dict[str, Any],
                                                           request_id: int | str) -> None:
    message = JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result)
    line = message_line(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == json.loads(pydantic_line(message))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), NO_FLOATS, max_size=5))
def test_without_floats_the_line_is_the_bytes_pydantic_wrote(result: dict[str, Any]) -> None:
    message = JSONRPCResponse(jsonrpc="2.0", id=7, result=result)
    assert message_line(message) == pydantic_line(message)


def test_floats_differ_only_in_how_a_large_exponent_is_spelled() -> None:
    message = JSONRPCResponse(jsonrpc="2.0", id=1, result={"scores": [0.5, 1e-05, 1e16, 2.5e300]})
    assert json.loads(message_line(message)) == json.loads(pydantic_line(message))
    assert b"0.00001" in message_line(message)  # as pydantic spells it


def test_fields_left_unset_stay_out_in_field_order() -> None:
    message = JSONRPCResponse.model_validate({"id": 3, "result": {"ok": True}, "jsonrpc": "2.0"})
    assert list(response_fields(message)) == ["jsonrpc", "id", "result"]
    assert message_line(message) == b'{"jsonrpc":"2.0","id":3,"result":{"ok":true}}\n'


def test_every_other_message_is_written_by_pydantic() -> None:
    for message in (
        JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed"),
        JSONRPCRequest(jsonrpc="2.0", id=9, method="elicitation/create", params={"message": "é"}),
        JSONRPCError.model_validate({"jsonrpc": "2.0", "id": 2,
                                     "error": {"code": -32602, "message": "Unknown tool: x"}}),
    ):
        assert message_line(message) == pydantic_line(message)


def test_what_msgspec_cannot_write_is_left_to_pydantic_as_before() -> None:
    message = JSONRPCResponse(jsonrpc="2.0", id=1, result={"title": "half \ud800 pair"})
    with pytest.raises(PydanticSerializationError):
        pydantic_line(message)
    with pytest.raises(PydanticSerializationError):
        message_line(message)
