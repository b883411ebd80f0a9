"""The engine server answers by the protocol, over a real stdio subprocess: raw frames first,
then the SDK's own client. Proper JSON-RPC codes, the id rule, the refusal envelope for bad
arguments, arguments refused by name, and a revetly.toml that does not add up."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from revetly_core.surface import TOOLS, tool_spec
from revetly_mcp.protocol import INITIALIZE_FIRST

from tests.mcp.rawstdio import RawServer

BROKEN = '\n[index]\nbackend = "nope"\n'


def _request(request_id: object, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def _call(request_id: object, name: str, arguments: dict[str, Any]) -> bytes:
    return _request(request_id, "tools/call", {"name": name, "arguments": arguments})


def _refusal(answer: dict[str, Any]) -> dict[str, Any]:
    result = answer["result"]
    assert result["isError"] is False
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    body: dict[str, Any] = result["structuredContent"]["refusal"]
    return body


def test_a_request_before_initialize_is_invalid_request_with_a_message(
        synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    try:
        early = server.ask(_request(1, "tools/list"))
        assert early["id"] == 1 and early["error"]["code"] == -32600
        assert early["error"]["message"] == INITIALIZE_FIRST
        assert early["error"]["data"] == {"method": "tools/list"}
        assert server.ask(_call(2, "context_health", {}))["error"]["code"] == -32600
        assert server.ask(_request(3, "ping")) == {"jsonrpc": "2.0", "id": 3, "result": {}}
        assert server.ask(_request(4, "no/such"))["error"]["code"] == -32601
        assert server.initialize()["id"] == 1
        assert "tools" in server.ask(_request(5, "tools/list"))["result"]
    finally:
        assert server.close() == 0


def test_unknown_prompts_and_tools_are_invalid_params(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    try:
        server.initialize()
        prompt = server.ask(_request(2, "prompts/get", {"name": "nope", "arguments": {}}))
        assert prompt["id"] == 2 and prompt["error"]["code"] == -32602
        assert prompt["error"]["data"]["code"] == "unknown-prompt"
        assert "nope" in prompt["error"]["message"]
        missing = server.ask(_request(3, "prompts/get", {"name": "revetly-ship", "arguments": {}}))
        assert missing["error"]["code"] == -32602
        assert missing["error"]["data"]["argument"] == "artifact_id"
        served = server.ask(_request(4, "prompts/get", {"name": "revetly-ship",
                                                        "arguments": {"artifact_id": "S-1"}}))
        assert "S-1" in served["result"]["messages"][0]["content"]["text"]
        tool = server.ask(_call(5, "no_such_tool", {}))
        assert tool["error"]["code"] == -32602 and tool["error"]["data"] == {"tool": "no_such_tool"}
        malformed = server.ask(_request(6, "tools/call", {"arguments": {}}))
        assert malformed["error"]["code"] == -32602 and malformed["error"]["message"]
        retired = _refusal(server.ask(_call(7, "get_binding", {"topic": "x"})))
        assert retired["code"] == "retired-tool"
    finally:
        assert server.close() == 0


def test_wrong_argument_types_answer_the_refusal_envelope(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    try:
        server.initialize()
        limit = _refusal(server.ask(_call(2, "search_context", {"query": "invoices",
                                                                "limit": "many"})))
        assert limit["code"] == "invalid-argument" and limit["argument"] == "limit"
        assert limit["expected"] == "an integer" and limit["tool"] == "search_context"
        assert "pydantic" not in json.dumps(limit)
        query = _refusal(server.ask(_call(3, "search_context", {"query": 5})))
        assert query["argument"] == "query"
        absent = _refusal(server.ask(_call(4, "get_artifact", {})))
        assert absent["argument"] == "artifact_id" and "requires" in absent["detail"]
        criteria = _refusal(server.ask(_call(5, "submit_draft", {
            "title": "t", "description": "d", "acceptance_criteria": [1, {"a": 2}]})))
        assert criteria["argument"] == "acceptance_criteria" and criteria["wrote"] is False
        assert criteria["expected"] == "a list of strings"
        assert server.ask(_request(6, "ping"))["result"] == {}
    finally:
        assert server.close() == 0


def test_unknown_and_retired_arguments_are_refused_by_name(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    try:
        server.initialize()
        semantic = _refusal(server.ask(_call(2, "search_context", {"query": "invoices",
                                                                   "semantic": True})))
        assert semantic["code"] == "retired-argument" and semantic["argument"] == "semantic"
        assert semantic["replacement"] == "search_context(query=...)"
        unknown = _refusal(server.ask(_call(3, "context_health", {"verbose": True})))
        assert unknown["code"] == "unknown-argument" and unknown["accepted"] == ["capture"]
        write = _refusal(server.ask(_call(4, "set_status", {"artifact_id": "S", "status": "done",
                                                            "force": True})))
        assert write["code"] == "unknown-argument" and write["wrote"] is False
    finally:
        assert server.close() == 0


@pytest.mark.parametrize(("request_id", "accepted"), [
    ("x" * 300_000, False), (2**80, False), (-(2**80), False), (2**53, False),
    ("é" * 129, False), (2**53 - 1, True), (-(2**53 - 1), True), ("y" * 256, True),
    ("é" * 128, True), (0, True),
])
def test_the_id_rule_bounds_strings_and_integers(synced_instance: Path, request_id: object,
                                                 accepted: bool) -> None:
    server = RawServer(synced_instance)
    try:
        server.initialize()
        answer = server.ask(_request(request_id, "ping"))
        if accepted:
            assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {}}
        else:
            assert answer["id"] is None and answer["error"]["code"] == -32600
            assert "256" in answer["error"]["message"]
        assert server.ask(_request(9, "ping"))["id"] == 9
    finally:
        assert server.close() == 0


def test_a_declaration_that_does_not_add_up_is_served_as_refusals_until_fixed(
        synced_instance: Path) -> None:
    config = synced_instance / "revetly.toml"
    good = config.read_text()
    config.write_text(good + BROKEN)
    server = RawServer(synced_instance)
    try:
        assert server.initialize()["result"]["serverInfo"]["name"] == "revetly"
        listed = server.ask(_request(2, "tools/list"))["result"]["tools"]
        assert {t["name"] for t in listed} >= {"context_health", "search_context"}
        for number, (name, arguments) in enumerate((("context_health", {}),
                                                    ("search_context", {"query": "invoices"}),
                                                    ("list_backlog", {})), start=3):
            body = _refusal(server.ask(_call(number, name, arguments)))
            assert body["code"] == "refused" and body["setting"] == "index.backend", name
        write = _refusal(server.ask(_call(7, "record_conversation", {"title": "t", "body": "b"})))
        assert write["code"] == "refused" and write["wrote"] is False
        health = server.ask(_request(8, "resources/read", {"uri": "revetly://health"}))
        assert json.loads(health["result"]["contents"][0]["text"])["refusal"]["code"] == "refused"
        config.write_text(good)
        fixed = server.ask(_call(9, "context_health", {}))
        assert "corpus_revision" in fixed["result"]["structuredContent"]
    finally:
        assert server.close() == 0


def test_no_instance_still_stops_the_server_with_status_2(tmp_path: Path) -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "revetly_mcp", "--instance", str(tmp_path)],
                          input=b"", capture_output=True, timeout=60, check=False)
    assert done.returncode == 2 and b"no-instance" in done.stderr


# ---- the SDK's own client over stdio ----


def _stdio(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "revetly_mcp", "--instance", str(root)])


@pytest.mark.anyio
async def test_the_sdk_client_reads_the_refusals_and_the_codes(synced_instance: Path) -> None:
    async with Client(_stdio(synced_instance), mode="legacy") as client:
        retired = await client.call_tool("search_context", {"query": "invoices", "semantic": True})
        assert retired.is_error is False and retired.structured_content is not None
        assert retired.structured_content["refusal"]["code"] == "retired-argument"
        wrong = await client.call_tool("list_backlog", {"limit": "lots"})
        assert wrong.structured_content is not None
        assert wrong.structured_content["refusal"]["argument"] == "limit"
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("no_such_tool", {})
        assert unknown.value.error.code == -32602
        with pytest.raises(MCPError) as prompt:
            await client.get_prompt("nope", {})
        assert prompt.value.error.code == -32602
        health = await client.call_tool("context_health", {})
        assert health.structured_content is not None
        assert "corpus_revision" in health.structured_content


@pytest.mark.anyio
async def test_every_served_tools_input_schema_is_the_catalogues_arguments(
        synced_instance: Path) -> None:
    async with Client(_stdio(synced_instance), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) <= {spec.name for spec in TOOLS}
    for name, tool in tools.items():
        assert tuple(tool.input_schema["properties"]) == tool_spec(name).arguments, name
