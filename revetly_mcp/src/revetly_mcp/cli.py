"""`revetly-mcp`: stdio by default, the served endpoint with --http (the options `revetly
serve` takes, one for one)."""

from __future__ import annotations

import argparse
import sys

from revetly_mcp.frames import DEFAULT_MAX_FRAME


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(prog="revetly-mcp",
                                  description="Revetly's MCP server over stdio, or Streamable "
                                  "HTTP with --http.")
    out.add_argument("--instance", default=None, help="instance folder")
    out.add_argument("--project", default=None, help="bind the connection to one project")
    out.add_argument("--max-frame", type=int, default=DEFAULT_MAX_FRAME,
                     help="stdio: longest JSON-RPC line accepted, in bytes (default 1 MiB)")
    out.add_argument("--http", action="store_true", help="serve Streamable HTTP, not stdio")
    out.add_argument("--host", default=None, help="HTTP bind address (default [served] host)")
    out.add_argument("--port", type=int, default=None, help="HTTP port (default [served] port)")
    out.add_argument("--path", default=None, help="HTTP endpoint path (default /mcp)")
    out.add_argument("--read-only", action="store_true",
                     help="HTTP: serve every read, refuse every write")
    return out


def main(argv: list[str] | None = None) -> None:
    """`revetly-mcp [--instance PATH] [--project NAME] [--max-frame BYTES] [--http ...]`."""
    ns = parser().parse_args(argv)
    if ns.http:
        from revetly_mcp.serve_http import run_http

        sys.exit(run_http(ns.instance, ns.project, host=ns.host, port=ns.port, path=ns.path,
                          read_only=ns.read_only))
    from revetly_mcp.launch import run

    sys.exit(run(ns.instance, ns.project, ns.max_frame))
