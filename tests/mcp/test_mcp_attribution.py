"""A draft submitted over MCP is drafted by the client that sent it (its clientInfo), not by
the machine's git user; the approval names who approved it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.client import advertise
from mcp.types import Implementation
from revetly_mcp.server import build_server

from revetly_core import Engine

pytestmark = pytest.mark.anyio

APP = advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})


async def test_the_client_info_names_the_drafting_agent(writable: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine.open(writable)
    engine.capture_mode = "none"
    info = Implementation(name="acme-agent", version="1.4.0")
    async with Client(build_server(engine), mode="legacy", client_info=info,
                      extensions=[APP]) as client:
        result = await client.call_tool("submit_draft", {
            "title": "Dunning", "description": "Remind them.",
            "acceptance_criteria": ["After 7 days"]})
    rid = (result.structured_content or {})["review_id"]
    drafted = Engine.open(writable).review_state(rid)["drafted_by"]
    assert drafted["name"] == "acme-agent" and drafted["kind"] == "machine"
    assert drafted["agent"] == "acme-agent 1.4.0"
    monkeypatch.setenv("REVETLY_REVIEWER", "Ana Person")
    approver = Engine.open(writable)
    approver.capture_mode = "none"
    done = approver.resolve_review(rid, "approve")
    assert done["decided_by"]["name"] == "Ana Person" and done["status"] == "applied"
