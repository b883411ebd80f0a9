"""The SDK internals revetly_mcp needs are read in sdk_seam.py alone: no other module of the
shell names a private attribute of the SDK, so an SDK upgrade that renames one breaks one
function (and this test names where)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel
from revetly_mcp.sdk_seam import lowlevel_server, publish_output_schema_only, registered_tool

import revetly_mcp
from revetly_core import Engine


class Answer(BaseModel):
    """A one-field answer type, for the seam's own test."""

    count: int


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


def test_every_served_tool_lists_its_output_schema_without_revalidating_answers(
        synced_instance: Path) -> None:
    from revetly_mcp.server import RevetlyServer

    server = RevetlyServer(Engine.open(synced_instance))
    tools = [registered_tool(server.mcp, name) for name in server.surface.served()]
    assert tools and all(t is not None for t in tools)
    for tool in tools:
        assert tool is not None
        assert tool.output_schema, tool.name
        assert tool.fn_metadata.output_model is None, tool.name


@pytest.mark.anyio
async def test_an_answer_outside_the_schema_is_served_as_built_once_published_only() -> None:
    """The seam's premise on the SDK: with no output model, the SDK hands a CallToolResult on as
    the tool returned it (with one, mcp 2.3 validated it and failed the call)."""
    mcp = MCPServer("seam")

    @mcp.tool()
    def count() -> Annotated[CallToolResult, Answer]:
        return CallToolResult(content=[TextContent(type="text", text="{}")],
                              structured_content={"count": "not a number"})

    tool = registered_tool(mcp, "count")
    assert tool is not None
    with pytest.raises(ToolError):
        await mcp.call_tool("count", {})
    schema = tool.output_schema
    publish_output_schema_only(tool)
    assert tool.output_schema == schema and schema is not None and "count" in schema["properties"]
    result = await mcp.call_tool("count", {})
    assert isinstance(result, CallToolResult)
    assert result.structured_content == {"count": "not a number"}
