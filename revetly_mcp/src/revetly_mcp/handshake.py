"""The engine server's answer to ``initialize``, written before the SDK has loaded.

Importing the ``mcp`` SDK costs ~0.8 s of CPU (its ``__init__`` loads the client, the server
and both protocol eras' pydantic models), and a host waits for the initialize answer before it
does anything else. The stdio start (``revetly_mcp.launch``) reads the first frame with the
stdlib while the SDK loads in a thread; when that frame is an initialize this module can vouch
for, it writes the answer the SDK will give to it: the same ``protocolVersion`` negotiation
(a handshake version is echoed), ``capabilities`` (with ``tools.listChanged``, which our
middleware sets), ``serverInfo`` and ``instructions``, in the SDK's key order. The SDK is then
handed that same initialize, so its session state is set from it as before, and its own
answer for that id is dropped (``transport.py``).

A frame is vouched for only in the shapes checked here, each a strict subset of what the SDK's
models accept (no coercion, no unknown key inside a known object, no null, every string plain
UTF-8); any other first frame is left to the SDK. ``tests/mcp/test_mcp_handshake.py`` pins it
against the SDK itself: every frame answered here is one the SDK accepts, with the same bytes
on the wire, for every handshake version. Nothing here imports ``mcp`` or pydantic.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from revetly_mcp.frames import strict_id

SERVER_NAME = "revetly"

INSTRUCTIONS = (
    "Revetly holds this product's backlog, decisions, conversations, delivery records and the "
    "commits that implement them. Ground before work (search_context, get_artifact, get_scope), "
    "draft from get_authoring_context, and treat 'awaiting-review' as final for the call: report "
    "the review_id and stop. Call context_health before trusting an empty answer."
)

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the SDK (mcp 2.3) negotiates with initialize; each is echoed back."""

CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": True},
}
"""What the SDK declares for the engine server's handlers, with our middleware's listChanged."""

TEXT = "text"
BOOL = "bool"
OBJECT = "object"
OBJECT_MAP = "object-map"
Shape: TypeAlias = "str | Mapping[str, Shape]"
"""A leaf kind (TEXT, BOOL, OBJECT: any JSON object, OBJECT_MAP: an object of objects) or a
known object: its only allowed keys, each with its shape."""

CAPABILITIES_SHAPE: Mapping[str, Shape] = {
    "experimental": OBJECT_MAP,
    "extensions": OBJECT_MAP,
    "roots": {"listChanged": BOOL},
    "sampling": {"context": OBJECT, "tools": OBJECT},
    "elicitation": {"form": OBJECT, "url": OBJECT},
    "tasks": {"list": OBJECT, "cancel": OBJECT,
              "requests": {"sampling": {"createMessage": OBJECT}, "elicitation": {"create": OBJECT}}},
}
CLIENT_INFO_SHAPE: Mapping[str, Shape] = {
    "name": TEXT, "version": TEXT, "title": TEXT, "description": TEXT, "websiteUrl": TEXT,
}
PARAMS_SHAPE: Mapping[str, Shape] = {
    "protocolVersion": TEXT, "capabilities": CAPABILITIES_SHAPE, "clientInfo": CLIENT_INFO_SHAPE,
}
REQUIRED: Mapping[str, tuple[str, ...]] = {
    "params": ("protocolVersion", "capabilities", "clientInfo"),
    "clientInfo": ("name", "version"),
}
ENVELOPE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})


@dataclass(frozen=True)
class EarlyAnswer:
    """The initialize answered before the SDK loaded: its request id and the line written."""

    request_id: int | str
    line: bytes


def fits_shape(value: object, shape: Shape) -> bool:
    """Whether a parsed JSON value has this shape exactly (no coercion, no null, no key a known
    object does not name)."""
    if shape == TEXT:
        return isinstance(value, str)
    if shape == BOOL:
        return isinstance(value, bool)
    if shape == OBJECT:
        return isinstance(value, dict)
    if shape == OBJECT_MAP:
        return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())
    assert isinstance(shape, Mapping)
    return isinstance(value, dict) and all(
        key in shape and fits_shape(item, shape[key]) for key, item in value.items())


def plain_text(value: object) -> bool:
    """Whether every string in a parsed JSON value, keys included, is plain UTF-8 (a lone
    surrogate from a ``\\ud800`` escape is not)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def vouched_version(message: object) -> str | None:
    """The protocol version of an initialize request the SDK is known to accept and answer as
    ``initialize_result`` does; None for anything else (left to the SDK)."""
    if not isinstance(message, dict) or not ENVELOPE_KEYS.issuperset(message):
        return None
    if message.get("jsonrpc") != "2.0" or message.get("method") != "initialize":
        return None
    if "id" not in message or not strict_id(message["id"]):
        return None
    params = message.get("params")
    if not fits_shape(params, PARAMS_SHAPE) or not plain_text(message):
        return None
    assert isinstance(params, dict)
    if any(key not in params for key in REQUIRED["params"]):
        return None
    if any(key not in params["clientInfo"] for key in REQUIRED["clientInfo"]):
        return None
    version = params["protocolVersion"]
    return version if version in HANDSHAKE_VERSIONS else None


def initialize_result(protocol_version: str, server_version: str) -> dict[str, Any]:
    """The initialize result the SDK gives the engine server, in its key order."""
    return {"capabilities": CAPABILITIES, "instructions": INSTRUCTIONS,
            "protocolVersion": protocol_version,
            "serverInfo": {"name": SERVER_NAME, "version": server_version}}


def response_line(request_id: int | str, result: dict[str, Any]) -> bytes:
    """A JSON-RPC response as the transport writes it: one compact line, UTF-8, newline."""
    message = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def early_answer(frame: bytes, server_version: str) -> EarlyAnswer | None:
    """The answer to a first frame that is a vouched-for initialize, or None."""
    try:
        message = json.loads(frame)
    except (ValueError, RecursionError):
        return None
    version = vouched_version(message)
    if version is None:
        return None
    request_id: int | str = message["id"]
    return EarlyAnswer(request_id, response_line(request_id,
                                                 initialize_result(version, server_version)))
