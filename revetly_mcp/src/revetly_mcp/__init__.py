"""Revetly's MCP server: the engine's tools for agent hosts, each one call into revetly_core."""

from typing import TYPE_CHECKING, Any

from revetly_mcp.cli import main
from revetly_mcp.server import build_server, serve_stdio

if TYPE_CHECKING:
    from revetly_mcp.governed_server import GovernedMCPServer

__all__ = ["GovernedMCPServer", "build_server", "main", "serve_stdio"]


def __getattr__(name: str) -> Any:
    """The governed server loads on first use (it opens the governed layer's dependencies)."""
    if name == "GovernedMCPServer":
        from revetly_mcp.governed_server import GovernedMCPServer

        return GovernedMCPServer
    raise AttributeError(f"module 'revetly_mcp' has no attribute {name!r}")
