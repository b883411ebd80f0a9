"""The stdio MCP server. This release serves context_health; the read and write tools follow."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from revetly_core import Engine, Refusal
from revetly_mcp.transport import DEFAULT_MAX_FRAME, serve_stdio_guarded

INSTRUCTIONS = (
    "Revetly holds this product's backlog, decisions, conversations, delivery records and the "
    "commits that implement them. Call context_health to see whether CONTEXT is current."
)


def build_server(engine: Engine, project: str | None = None) -> MCPServer:
    """An MCPServer whose tools are single calls into the engine."""
    server = MCPServer("revetly", version="0.1.0", instructions=INSTRUCTIONS)

    @server.tool(
        name="context_health",
        description=(
            "Whether the last read pass landed, per source, with the corpus revision, freshness, "
            "history floors and counts by kind and status. Call before trusting an empty answer."
        ),
        annotations=ToolAnnotations(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def context_health() -> dict[str, Any]:
        try:
            return engine.context_health()
        except Refusal as refusal:
            return refusal.payload()

    return server


def serve_stdio(engine: Engine, project: str | None = None, max_frame: int = DEFAULT_MAX_FRAME) -> None:
    """Serve the engine over the hardened stdio transport until the host closes the pipe."""
    import anyio

    low = build_server(engine, project)._lowlevel_server
    anyio.run(lambda: serve_stdio_guarded(low, low.create_initialization_options(),
                                          max_frame=max_frame))


def main(argv: list[str] | None = None) -> None:
    """`revetly-mcp [--instance PATH] [--project NAME]`."""
    parser = argparse.ArgumentParser(prog="revetly-mcp", description="Revetly's MCP server (stdio).")
    parser.add_argument("--instance", default=None, help="instance folder")
    parser.add_argument("--project", default=None, help="bind the connection to one project")
    parser.add_argument("--max-frame", type=int, default=DEFAULT_MAX_FRAME,
                        help="longest JSON-RPC line accepted, in bytes (default 1 MiB)")
    args = parser.parse_args(argv)
    try:
        engine = Engine.open(args.instance)
    except Refusal as refusal:
        print(f"revetly-mcp: {refusal}", file=sys.stderr)
        sys.exit(2)
    serve_stdio(engine, args.project, max_frame=args.max_frame)
