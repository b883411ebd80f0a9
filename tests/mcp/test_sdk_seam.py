"""The SDK internals revetly_mcp needs are read in sdk_seam.py alone: no other module of the
shell names a private attribute of the SDK, so an SDK upgrade that renames one breaks one
function (and this test names where)."""

from __future__ import annotations

import re
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from revetly_mcp.sdk_seam import lowlevel_server, registered_tool

import revetly_mcp
from revetly_core import Engine

SOURCE = Path(revetly_mcp.__file__).resolve().parent
PRIVATE_SDK_NAMES = re.compile(r"\._lowlevel_server\b|\._tool_manager\b|[\"']_connection[\"']")


def test_only_the_seam_names_the_sdks_private_attributes() -> None:
    offenders = [p.name for p in SOURCE.glob("*.py")
                 if p.name != "sdk_seam.py" and PRIVATE_SDK_NAMES.search(p.read_text("utf-8"))]
    assert offenders == []


def test_the_seam_reaches_the_low_level_server_and_a_registered_tool(
        synced_instance: Path) -> None:
    from revetly_mcp.server import build_server

    mcp: MCPServer = build_server(Engine.open(synced_instance))
    assert lowlevel_server(mcp).get_request_handler("tools/call") is not None
    tool = registered_tool(mcp, "search_context")
    assert tool is not None and tool.name == "search_context"
    assert registered_tool(mcp, "no_such_tool") is None
