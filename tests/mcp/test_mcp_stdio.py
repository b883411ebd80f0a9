"""The MCP server over real stdio, driven by the SDK's own client."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from revetly_core import Engine


@pytest.fixture()
def synced_instance(tmp_path: Path) -> Path:
    root = tmp_path / "inst"
    Engine.init(root)
    Engine.open(root).sync()
    return root


async def _call_health(root: Path) -> tuple[list[str], dict[str, object]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "revetly_mcp", "--instance", str(root)]
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        result = await session.call_tool("context_health", {})
        return [t.name for t in tools.tools], json.loads(result.content[0].text)


def test_context_health_over_stdio_matches_core(synced_instance: Path) -> None:
    names, payload = anyio.run(_call_health, synced_instance)
    assert "context_health" in names
    assert payload == json.loads(json.dumps(Engine.open(synced_instance).context_health()))
