"""The guarded tools through a real governed MCP server subprocess and the SDK's own client."""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from revetly_core.governed.home import write_private_file

import revetly_mcp
from revetly_core import EvidenceService, Scope

SUPPORT = Path(__file__).resolve().parents[1] / "support"
GUARDED_APP = SUPPORT / "guarded_app.py"
PLAIN_APP = SUPPORT / "governed_app.py"
SCOPE = Scope("writer", "project")


@pytest.fixture()
def home(tmp_path: Path) -> list[str]:
    """A home with an application credential granted execute, read and search; the owner
    credential in ROOT/owner.token, as tests/support/guarded_app.py reads it."""
    root = tmp_path / "homes"
    evidence, owner = EvidenceService.create(root, "vault")
    principal, token = evidence.principals.issue_credential(owner, "app")
    evidence.principals.grant(owner, principal, ["execute", "read", "search"], SCOPE,
                              datetime.now(UTC) + timedelta(days=1))
    evidence.close()
    write_private_file(root / "owner.token", owner.encode())
    write_private_file(tmp_path / "app.token", token.encode())
    return [str(root), "vault", str(tmp_path / "app.token"), "writer", "project"]


async def _guarded_round(script: Path, argv: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=[str(script), *argv])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        out: dict[str, Any] = {"annotations": {t.name: t.annotations for t in listed.tools}}
        out["tools"] = (await session.call_tool("guarded_tools", {})).structured_content
        args = {"tool": "send_notice", "arguments": {"to": "ops", "text": "hello"}, "key": "k1"}
        first = await session.call_tool("guarded_execute", args)
        out["first"] = first.structured_content
        out["retry"] = (await session.call_tool("guarded_execute", args)).structured_content
        bad = await session.call_tool("guarded_execute", {**args, "arguments": {"to": "ops"}, "key": "k2"})
        out["bad"] = (bad.is_error, bad.structured_content)
        if isinstance(first.structured_content, dict) and "execution_id" in first.structured_content:
            inspected = await session.call_tool("guarded_inspect",
                                                {"execution": first.structured_content["execution_id"]})
            out["inspect"] = inspected.structured_content
        return out


def test_the_sdk_client_executes_retries_and_inspects_a_guarded_tool(home: list[str], tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    result = anyio.run(_guarded_round, GUARDED_APP, [*home, str(journal), "serve"])
    (tool,) = result["tools"]["tools"]
    assert tool["name"] == "send_notice" and tool["version"] == "1.0.0" and tool["available"] is True
    assert result["first"]["status"] == "acknowledged" and result["first"]["result"] == {"sent": True}
    assert result["retry"]["replayed"] is True
    assert result["retry"]["admission"] == result["first"]["admission"]
    assert result["bad"][0] is True and result["bad"][1]["refusal"]["code"] == "bad_tool_arguments"
    assert result["inspect"]["status"] == "acknowledged" and result["inspect"]["hold"] is False
    assert len(journal.read_text().splitlines()) == 1  # the retry dispatched nothing
    assert json.loads(journal.read_text())["invocation_id"] == result["first"]["execution_id"]
    assert result["annotations"]["guarded_execute"].destructive_hint is True
    assert result["annotations"]["guarded_inspect"].read_only_hint is True


async def _uncertain_round(argv: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=[str(GUARDED_APP), *argv],
                                   env={**os.environ, "GUARDED_TIMEOUT": "0.5"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        hung = await session.call_tool("guarded_execute", {
            "tool": "send_notice", "arguments": {"to": "ops", "text": "hang"}, "key": "k1"})
        fresh = await session.call_tool("guarded_execute", {
            "tool": "send_notice", "arguments": {"to": "ops", "text": "hello"}, "key": "k2"})
        assert isinstance(hung.structured_content, dict)
        execution_id = hung.structured_content["refusal"]["execution_id"]
        inspected = await session.call_tool("guarded_inspect", {"execution": execution_id})
        return {"hung": (hung.is_error, hung.structured_content), "fresh": fresh.structured_content,
                "inspect": inspected.structured_content}


def test_a_timed_out_tool_stays_held_against_a_new_key_over_mcp(home: list[str], tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    result = anyio.run(_uncertain_round, [*home, str(journal), "serve"])
    is_error, body = result["hung"]
    assert is_error is True and body["refusal"]["code"] == "effect_uncertain"
    assert body["refusal"]["reason"] == "timeout"
    assert result["fresh"]["refusal"]["code"] == "execution_held"
    assert result["inspect"]["status"] in ("uncertain", "unknown") and result["inspect"]["hold"] is True
    assert len(journal.read_text().splitlines()) == 1


async def _unconfigured(argv: list[str]) -> Any:
    params = StdioServerParameters(command=sys.executable, args=[str(PLAIN_APP), *argv])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answer = await session.call_tool("guarded_tools", {})
        return answer.is_error, answer.structured_content


def test_a_server_without_a_dispatcher_refuses_the_guarded_tools(home: list[str]) -> None:
    is_error, body = anyio.run(_unconfigured, home)
    assert is_error is True and body["refusal"]["code"] == "dispatcher_not_configured"


def test_the_package_root_exports_the_governed_server() -> None:
    from revetly_mcp.governed_server import GovernedMCPServer as Direct

    from revetly_mcp import GovernedMCPServer

    assert GovernedMCPServer is Direct
    assert revetly_mcp.__all__ == ["GovernedMCPServer", "build_server", "main", "serve_stdio"]
