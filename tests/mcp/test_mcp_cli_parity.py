"""For every read, the tool's structuredContent is the CLI's `--json` output on the example
instance, and the text content is the same bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from revetly_mcp.server import build_server

from revetly_core import Engine

pytestmark = pytest.mark.anyio

CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("search_context", {"query": "invoice pdf export"}, ["search", "invoice pdf export"]),
    ("search_context", {"query": "the"}, ["search", "the"]),
    ("get_artifact", {"artifact_id": "STORY-001"}, ["inspect", "STORY-001"]),
    ("get_artifact", {"artifact_id": "STORY-001", "history_after": ""},
     ["inspect", "STORY-001", "--history-after", ""]),
    ("get_artifact", {"artifact_id": "EPIC-001", "depth": 2}, ["branch", "EPIC-001", "--depth", "2"]),
    ("get_artifact", {"artifact_id": "NOPE-404"}, ["inspect", "NOPE-404"]),
    ("list_backlog", {"status": "done", "limit": 5}, ["backlog", "--status", "done", "--limit", "5"]),
    ("context_health", {}, ["status"]),
    ("get_scope", {"question": "binding", "artifact_id": "STORY-001"}, ["binding", "STORY-001"]),
    ("get_scope", {"question": "binding", "topic": "invoice pdf"},
     ["binding", "--topic", "invoice pdf"]),
    ("get_scope", {"question": "drift"}, ["drift"]),
    ("get_scope", {"question": "deltas", "since": "2025-05-01"}, ["deltas", "--since", "2025-05-01"]),
    ("get_authoring_context", {"topic": "invoice pdf"}, ["author", "invoice pdf"]),
    ("list_reviews", {"status": "all"}, ["review", "list", "--status", "all"]),
]


def _cli(root: Path, argv: list[str]) -> str:
    done = subprocess.run([sys.executable, "-m", "revetly_cli", *argv, "--instance", str(root),
                           "--json"], capture_output=True, text=True, check=False)
    assert done.returncode in (0, 2), done.stderr
    return done.stdout


async def test_every_read_matches_its_cli_twin(acme: Path) -> None:
    async with Client(build_server(Engine.open(acme)), mode="legacy") as client:
        for tool, arguments, argv in CASES:
            result = await client.call_tool(tool, arguments)
            printed = _cli(acme, argv)
            assert result.structured_content == json.loads(printed), tool
            assert result.content[0].text == printed.rstrip("\n"), tool  # type: ignore[union-attr]

