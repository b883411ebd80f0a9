"""The MCP server in memory through the SDK's own client: tools, refusals, binding, prompts,
resources, list_changed and retired names, in the handshake era and on 2026-07-28."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import ToolListChangedNotification
from revetly_core.surface import PROMPTS, RETIRED_TOOLS, prompt_text
from revetly_mcp.server import build_server

from revetly_core import Engine, Refusal

pytestmark = pytest.mark.anyio

READS = {"search_context", "get_artifact", "list_backlog", "context_health"}


def _server(root: Path, project: str | None = None) -> Any:
    return build_server(Engine.open(root), project)


async def test_every_read_is_listed_with_annotations_and_a_union_schema(synced_instance: Path) -> None:
    async with Client(_server(synced_instance), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= READS
    for name in READS:
        tool = tools[name]
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False
        assert tool.annotations.open_world_hint is False
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        refs = [branch["$ref"] for branch in tool.output_schema["anyOf"]]
        assert "#/$defs/RefusalEnvelope" in refs
        assert 40 <= len((tool.description or "").encode()) <= 600


async def test_a_refusal_is_the_same_body_in_structured_content_and_text(synced_instance: Path) -> None:
    async with Client(_server(synced_instance), mode="legacy") as client:
        result = await client.call_tool("search_context", {"query": "   "})
    assert result.is_error is False
    assert result.structured_content is not None
    assert result.structured_content["refusal"]["code"] == "invalid-argument"
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]


async def test_tools_list_changed_is_declared_and_sent_once(synced_instance: Path) -> None:
    seen: list[object] = []

    async def on_message(message: object) -> None:
        seen.append(message)

    async with Client(_server(synced_instance), mode="legacy", message_handler=on_message) as client:
        assert client.server_capabilities is not None
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        await client.call_tool("context_health", {})
        await client.call_tool("context_health", {})
        await client.list_tools()
    assert sum(isinstance(m, ToolListChangedNotification) for m in seen) == 1


async def test_no_list_changed_when_the_first_call_is_tools_list(synced_instance: Path) -> None:
    seen: list[object] = []

    async def on_message(message: object) -> None:
        seen.append(message)

    async with Client(_server(synced_instance), mode="legacy", message_handler=on_message) as client:
        await client.list_tools()
        await client.call_tool("context_health", {})
    assert not any(isinstance(m, ToolListChangedNotification) for m in seen)


async def test_a_retired_tool_is_refused_naming_its_replacement(synced_instance: Path) -> None:
    assert "get_branch" in RETIRED_TOOLS
    async with Client(_server(synced_instance), mode="legacy") as client:
        result = await client.call_tool("get_branch", {"artifact_id": "STORY-001"})
        names = {t.name for t in (await client.list_tools()).tools}
    assert "get_branch" not in names
    body = result.structured_content["refusal"]  # type: ignore[index]
    assert body["code"] == "retired-tool" and body["replacement"] == "get_artifact"
    assert "get_artifact" in body["fix"]


async def test_the_prompts_carry_the_scaffolded_instructions(synced_instance: Path) -> None:
    async with Client(_server(synced_instance), mode="legacy") as client:
        listed = (await client.list_prompts()).prompts
        assert [p.name for p in listed] == [p.name for p in PROMPTS]
        for spec in PROMPTS:
            got = await client.session.get_prompt(spec.name, {spec.argument: "STORY-001"})
            assert got.messages[0].content.text == prompt_text(spec.name, "STORY-001")  # type: ignore[union-attr]


async def test_the_three_resources_answer_and_a_bad_one_refuses_as_json(synced_instance: Path) -> None:
    async with Client(_server(synced_instance), mode="legacy") as client:
        surface = await client.read_resource("revetly://surface")
        health = await client.read_resource("revetly://health")
        missing = await client.read_resource("revetly://brief/STORY-999")
        still_up = await client.call_tool("context_health", {})
    doc = json.loads(surface.contents[0].text)  # type: ignore[union-attr]
    assert {t["name"] for t in doc["tools"]} >= READS
    assert "corpus_revision" in json.loads(health.contents[0].text)  # type: ignore[union-attr]
    assert missing.contents[0].mime_type == "application/json"
    refusal = json.loads(missing.contents[0].text)["refusal"]  # type: ignore[union-attr]
    assert refusal["code"] == "refused" and refusal["cause"] == "not-found"
    assert still_up.is_error is False


async def test_the_modern_era_serves_the_same_answers(synced_instance: Path) -> None:
    async with Client(_server(synced_instance)) as client:
        assert client.protocol_version == "2026-07-28"
        health = await client.call_tool("context_health", {})
        refused = await client.call_tool("get_deltas", {})
    assert "corpus_revision" in health.structured_content  # type: ignore[operator]
    assert refused.structured_content["refusal"]["code"] == "retired-tool"  # type: ignore[index]


async def test_a_bound_connection_answers_as_its_project(duo: Path) -> None:
    async with Client(_server(duo, "beta"), mode="legacy") as client:
        backlog = await client.call_tool("list_backlog", {})
        health = await client.call_tool("context_health", {})
    rows = backlog.structured_content["items"]  # type: ignore[index]
    assert backlog.structured_content["project"] == "beta"  # type: ignore[index]
    assert [r["artifact_id"] for r in rows] == ["STORY-002"]
    assert health.structured_content["project"] == "beta"  # type: ignore[index]


async def test_a_bound_connection_refuses_another_project(duo: Path) -> None:
    async with Client(_server(duo, "beta"), mode="legacy") as client:
        refused = await client.call_tool("search_context", {"query": "invoices", "project": "alpha"})
        listed = await client.call_tool("list_backlog", {"project": "beta,alpha"})
    for result in (refused, listed):
        body = result.structured_content["refusal"]  # type: ignore[index]
        assert body["code"] == "bound-to-another-project"
        assert body["bound_to"] == "beta" and "fix" in body


def test_an_undeclared_bound_project_stops_the_server(duo: Path) -> None:
    with pytest.raises(Refusal) as caught:
        build_server(Engine.open(duo), "gamma")
    assert "alpha" in caught.value.fix and "beta" in caught.value.fix
