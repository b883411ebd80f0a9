"""Revetly's MCP server: the engine's tools for agent hosts, each one call into revetly_core."""

__all__ = ["build_server", "main", "serve_stdio"]

from revetly_mcp.cli import main
from revetly_mcp.server import build_server, serve_stdio
