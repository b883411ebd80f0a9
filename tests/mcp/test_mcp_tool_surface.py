"""The tool surface is pinned: a committed snapshot of every tool's name, schemas, annotations
and _meta. A change fails here until the snapshot is regenerated on purpose:

    REVETLY_UPDATE_SNAPSHOT=1 pytest tests/mcp/test_mcp_tool_surface.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from revetly_mcp.server import build_server

from revetly_core import Engine

pytestmark = pytest.mark.anyio

SNAPSHOT = Path(__file__).resolve().parent / "tool_surface.json"


async def _surface(root: Path) -> list[dict[str, Any]]:
    async with Client(build_server(Engine.open(root)), mode="legacy") as client:
        tools = (await client.list_tools()).tools
    return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]


async def test_the_tool_surface_matches_the_committed_snapshot(synced_instance: Path) -> None:
    current = await _surface(synced_instance)
    text = json.dumps(current, indent=2, sort_keys=True) + "\n"
    if os.environ.get("REVETLY_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(text)
    assert SNAPSHOT.exists(), "no snapshot: run with REVETLY_UPDATE_SNAPSHOT=1"
    assert json.loads(SNAPSHOT.read_text()) == json.loads(text), (
        "the tool surface changed; if on purpose, regenerate with REVETLY_UPDATE_SNAPSHOT=1")
