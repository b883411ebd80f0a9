"""get_scope over MCP lists a path's stories as core does: five, or up to the limit given."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from revetly_mcp.server import build_server

from revetly_core import Engine
from tests.core.scope.crowded import SHARED_FILE, build_crowded

pytestmark = pytest.mark.anyio


async def test_the_limit_reaches_the_path_binding(tmp_path: Path) -> None:
    crowded = build_crowded(tmp_path)
    async with Client(build_server(Engine.open(crowded.root)), mode="legacy") as client:
        for arguments, listed in (({}, 5), ({"limit": 7}, 7)):
            result = await client.call_tool("get_scope", {"question": "binding",
                                                          "path": SHARED_FILE, **arguments})
            assert result.structured_content is not None
            behind = [b["artifact_id"] for b in result.structured_content["behind"]]
            assert behind == crowded.order[:listed]
            assert result.structured_content["more_ranked"] == len(crowded.order) - listed
