"""Revetly's MCP server: the engine's tools for agent hosts, each one call into revetly_core.

Importing the package loads no SDK: `revetly-mcp` answers initialize before `mcp` has loaded
(decisions/0038), so the servers load on first use."""

from typing import TYPE_CHECKING, Any

from revetly_mcp.cli import main

if TYPE_CHECKING:
    from revetly_mcp.governed_server import GovernedMCPServer
    from revetly_mcp.server import build_server, serve_stdio

__all__ = ["GovernedMCPServer", "build_server", "main", "serve_stdio"]


def __getattr__(name: str) -> Any:
    """The servers load on first use (the engine server imports the SDK, the governed one the
    governed layer's dependencies too)."""
    if name == "GovernedMCPServer":
        from revetly_mcp.governed_server import GovernedMCPServer

        return GovernedMCPServer
    if name in ("build_server", "serve_stdio"):
        from revetly_mcp import server

        return getattr(server, name)
    raise AttributeError(f"module 'revetly_mcp' has no attribute {name!r}")
