"""The protocol errors both servers answer, whatever transport carries them.

The MCP specification asks for a JSON-RPC error where the request itself cannot be served (an
unknown tool or prompt, a request before initialize) and for a tool result where the tool's
arguments are wrong, so a model reads what to correct. The SDK answers some of these with code 0,
with empty data, or with pydantic's own text; these functions give each a proper code and a
sentence, and turn an argument the tool cannot take into a named problem a refusal can carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, INVALID_REQUEST
from pydantic import ValidationError
from revetly_core.refusal import Refusal

from revetly_mcp.sdk_seam import connection_of, lowlevel_server, registered_tool

__all__ = ["ArgumentProblem", "argument_problem", "handshake_open", "initialize_first_error",
           "refusal_error", "registered_tool", "served_before_initialize", "tool_call_target",
           "unknown_tool_error"]

ANSWERED_BEFORE_INITIALIZE = frozenset({"initialize", "ping"})
"""The only requests a server answers before the handshake (MCP lifecycle: ping may come first)."""

INITIALIZE_FIRST = "Invalid Request: initialize first (only ping is answered before initialize)"


def initialize_first_error(method: str) -> MCPError:
    """-32600 for a request that came before initialize, naming the method."""
    return MCPError(code=INVALID_REQUEST, message=INITIALIZE_FIRST, data={"method": method})


def handshake_open(rctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this connection may be served: initialize was answered (or, on 2026-07-28, the
    per-request envelope made the connection ready without one)."""
    return bool(getattr(connection_of(rctx), "initialize_accepted", True))


def served_before_initialize(mcp: MCPServer, rctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether a request may go on: answered before initialize, or after it. A method the
    server does not serve goes on too, so it is answered -32601 (JSON-RPC's own rule)."""
    if rctx.request_id is None or rctx.method in ANSWERED_BEFORE_INITIALIZE:
        return True
    if lowlevel_server(mcp).get_request_handler(rctx.method) is None:
        return True
    return handshake_open(rctx)


def unknown_tool_error(name: str) -> MCPError:
    """-32602 for a tools/call naming no tool this server serves (the MCP spec's code)."""
    return MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name}", data={"tool": name})


def refusal_error(refusal: Refusal) -> MCPError:
    """-32602 carrying a refusal: for a request whose params name what cannot be served."""
    return MCPError(code=INVALID_PARAMS, message=f"Invalid params: {refusal.detail}",
                    data=refusal.payload()["refusal"])


MALFORMED_CALL = "Invalid params: tools/call takes name (a string) and arguments (an object)"


def tool_call_target(rctx: ServerRequestContext[Any, Any]) -> tuple[str, dict[str, Any]] | None:
    """A tools/call's tool name and arguments; None for any other method; -32602 (raised) when
    the params are not of that shape."""
    if rctx.method != "tools/call":
        return None
    params = rctx.params if isinstance(rctx.params, Mapping) else {}
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
        raise MCPError(code=INVALID_PARAMS, message=MALFORMED_CALL)
    return name, dict(arguments or {})


@dataclass(frozen=True)
class ArgumentProblem:
    """The first argument a tool's signature cannot take, what is wrong, and its schema."""

    argument: str
    problem: str
    schema: dict[str, Any] | None


def argument_problem(tool: Tool, arguments: dict[str, Any]) -> ArgumentProblem | None:
    """Check the arguments as the SDK will before the body runs; the first failure, named."""
    try:
        tool.fn_metadata.validate_arguments(arguments)
    except ValidationError as exc:
        error = exc.errors()[0]
        argument = str(error["loc"][0]) if error["loc"] else "arguments"
        problem = "is missing, and the tool requires it" if error["type"] == "missing" else str(
            error["msg"])
        properties = tool.parameters.get("properties", {})
        schema = properties.get(argument) if isinstance(properties, dict) else None
        return ArgumentProblem(argument, problem[:1].lower() + problem[1:],
                               schema if isinstance(schema, dict) else None)
    return None
