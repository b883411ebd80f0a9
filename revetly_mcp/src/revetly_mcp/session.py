"""Per-connection state the MCP layer keeps: what the client declared, and what it was told."""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from revetly_mcp.sdk_seam import connection_of


@dataclass
class SessionState:
    """One connection: an opaque id the core records, and whether list_changed went out."""

    session_id: str = field(default_factory=lambda: f"mcp-{uuid.uuid4().hex[:16]}")
    announced: bool = False


class Sessions:
    """Session state keyed by the SDK's session object, dropped with it."""

    def __init__(self) -> None:
        self._states: weakref.WeakKeyDictionary[Any, SessionState] = weakref.WeakKeyDictionary()

    def state(self, rctx: ServerRequestContext[Any, Any]) -> SessionState:
        connection = connection_of(rctx)  # per client; the ServerSession is per request
        found = self._states.get(connection)
        if found is None:
            found = self._states[connection] = SessionState()
        return found


def declared_params(rctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    """What the client declared, shaped as raw initialize params in either protocol era."""
    params = rctx.session.client_params
    if params is not None:
        dumped: dict[str, Any] = params.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped
    caps = rctx.session.client_capabilities
    return {
        "protocolVersion": rctx.protocol_version,
        "capabilities": caps.model_dump(by_alias=True, exclude_none=True, mode="json") if caps else {},
    }


def can_send_requests(rctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this era lets the server ask the client mid-call (no on 2026-07-28)."""
    return rctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and rctx.session.can_send_request


def asks_mid_call(declared: Mapping[str, Any]) -> bool:
    """Whether the engine may ask this client something mid-call: it declared elicitation, the
    one server request Revetly makes. Such a session needs each POST's own SSE stream; any
    other is answered in plain JSON bodies, since nothing but the response travels on them."""
    capabilities = declared.get("capabilities")
    return isinstance(capabilities, Mapping) and "elicitation" in capabilities
