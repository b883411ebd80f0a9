"""The MCP server as a spawned `revetly-mcp` process, driven by the SDK's own client in the
handshake era (what hosts speak) and on 2026-07-28."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import ToolListChangedNotification

from revetly_core import Engine

pytestmark = pytest.mark.anyio


def _params(root: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "revetly_mcp", "--instance", str(root), *extra])


async def test_handshake_era_over_stdio_matches_core(synced_instance: Path) -> None:
    seen: list[object] = []

    async def on_message(message: object) -> None:
        seen.append(message)

    async with Client(_params(synced_instance), mode="legacy", message_handler=on_message) as client:
        assert client.protocol_version in ("2025-06-18", "2025-11-25")
        result = await client.call_tool("context_health", {})
        names = {t.name for t in (await client.list_tools()).tools}
    assert "context_health" in names
    expected = json.loads(json.dumps(Engine.open(synced_instance).context_health()))
    assert result.structured_content == expected
    assert sum(isinstance(m, ToolListChangedNotification) for m in seen) == 1


async def test_modern_era_over_stdio(synced_instance: Path) -> None:
    async with Client(_params(synced_instance)) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("search_context", {"query": "anything at all"})
    assert result.structured_content is not None
    assert result.structured_content["query"] == "anything at all"
    assert result.structured_content["artifacts"] == []


async def test_revetly_serve_is_the_same_server(synced_instance: Path) -> None:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "revetly_cli", "serve", "--instance",
                                         str(synced_instance)])
    async with Client(params, mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert {"search_context", "get_artifact", "list_backlog", "context_health"} <= names


@pytest.mark.parametrize("command", [["-m", "revetly_mcp"], ["-m", "revetly_cli", "serve"]])
def test_an_undeclared_project_stops_the_server_before_it_answers(
        synced_instance: Path, command: list[str]) -> None:
    done = subprocess.run([sys.executable, *command, "--instance", str(synced_instance),
                           "--project", "nowhere"], input=b"", capture_output=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"inst" in done.stderr  # the declared project is named


def test_revetly_serve_takes_the_same_options_as_revetly_mcp() -> None:
    import re

    def options(*argv: str) -> set[str]:
        done = subprocess.run([sys.executable, *argv, "--help"], capture_output=True, text=True,
                              check=True, env={"COLUMNS": "200", "PATH": ""})
        return set(re.findall(r"--[a-z][a-z-]+", done.stdout)) - {"--help"}

    assert options("-m", "revetly_mcp") == options("-m", "revetly_cli", "serve")
    assert {"--instance", "--project", "--max-frame"} <= options("-m", "revetly_mcp")


async def test_a_spanning_read_over_stdio_answers_over_both_projects(duo: Path) -> None:
    async with Client(_params(duo), mode="legacy") as client:
        result = await client.call_tool("list_backlog", {"project": "alpha,beta"})
    answer = result.structured_content or {}
    assert answer == Engine.open(duo).list_backlog(project="alpha,beta")
    assert sorted(r["artifact_id"] for r in answer["items"]) == ["STORY-001", "STORY-002"]
    assert answer["projects"] == ["alpha", "beta"]
    assert set(answer["freshness"]) == {"alpha", "beta"}
