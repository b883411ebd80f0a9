"""The few SDK internals this shell needs and the SDK (mcp 2.1 to 2.3) gives no public name for,
each read in exactly one function here so nothing else in revetly_mcp touches a private name.

- ``lowlevel_server``: MCPServer's low-level Server. Our hardened stdio transport (frame
  limits, id screening) and the HTTP app built with our own auth settings drive it directly,
  and the served-method check asks it which methods have a handler. The SDK's own Client and
  in-memory transport read the same attribute (its source marks it "make public" to do).
- ``registered_tool``: the SDK's Tool of a name, so a call's arguments are validated exactly as
  the SDK will before the body runs (MCPServer.list_tools gives the wire shape only).
- ``connection_of``: the per-client connection behind the per-request ServerSession, the one
  key that lives as long as the client (per-connection state, handshake state).
- ``publish_output_schema_only``: a tool's outputSchema stays listed while the SDK stops
  validating every answer against it again (decisions/0038). FuncMetadata's fields are public
  and read live, but what an absent output model means is the SDK's behaviour, so it is here.

When the SDK publishes any of these, replace the body here and nowhere else.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool


def lowlevel_server(mcp: MCPServer) -> Server[Any]:
    """The low-level Server an MCPServer wraps (no public accessor in mcp 2.3)."""
    server: Server[Any] = mcp._lowlevel_server
    return server


def registered_tool(mcp: MCPServer, name: str) -> Tool | None:
    """The SDK's tool of that name, or None."""
    return mcp._tool_manager.get_tool(name)


def connection_of(rctx: ServerRequestContext[Any, Any]) -> Any:
    """The connection a request came on (one per client; the SDK makes a ServerSession per
    request), or the session itself on an SDK that keeps none."""
    return getattr(rctx.session, "_connection", rctx.session)


def publish_output_schema_only(tool: Tool) -> None:
    """Keep the tool's outputSchema listed, but stop the SDK validating each answer against it:
    mcp 2.3 validates a returned CallToolResult only while its FuncMetadata holds an output model."""
    tool.fn_metadata.output_model = None
