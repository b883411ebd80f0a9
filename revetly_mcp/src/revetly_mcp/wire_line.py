"""One outgoing JSON-RPC message as the line the stdio transport writes.

pydantic's ``model_dump_json`` walks an answer's result (a search's structured content and its
text, ~30 kB) in ~0.09 ms; msgspec's encoder writes the same JSON in ~0.03 ms
(bench/README.md, decisions/0038). A response's result is already the SDK's JSON-shaped dump
(``mode="json"``), so only plain JSON values reach the encoder; anything msgspec refuses (a lone
surrogate, an integer beyond 64 bits), and every other kind of message, is written by pydantic
as before. The two agree value for value; they differ only in how a float of 1e16 or more
spells its exponent (``1e16`` against ``1e+16``), which reads back as the same number.
"""

from __future__ import annotations

from typing import Any

import msgspec
from mcp.types import JSONRPCResponse

_ENCODER = msgspec.json.Encoder()


def response_fields(message: JSONRPCResponse) -> dict[str, Any]:
    """A response's fields as pydantic's ``exclude_unset`` dump would give them, in order."""
    return {name: getattr(message, name) for name in JSONRPCResponse.model_fields
            if name in message.model_fields_set}


def message_line(message: Any) -> bytes:
    """The message as one line of compact JSON (newline included), by alias, unset fields
    left out: msgspec for a response whose result holds plain JSON, pydantic otherwise."""
    if type(message) is JSONRPCResponse and isinstance(message.result, dict):
        try:
            return _ENCODER.encode(response_fields(message)) + b"\n"
        except (TypeError, OverflowError, UnicodeEncodeError):
            pass
    text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
    return text.encode("utf-8") + b"\n"
