"""The endpoint over loopback without [auth]: the same tools and payloads as stdio, the
previous generation's addresses answered by name, Origin checked, list_changed on GET."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.mcp.http.http_clients import http_client, stdio_client
from tests.mcp.http.served_handles import ServeFactory
from tests.mcp.test_mcp_cli_parity import CASES

pytestmark = pytest.mark.anyio

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw-test", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_every_read_answers_over_http_as_over_stdio(acme: Path, serve: ServeFactory) -> None:
    served = serve(acme)
    over_http: list[object] = []
    over_stdio: list[object] = []
    async with http_client(served.url) as client:
        for tool, arguments, _ in CASES:
            over_http.append((await client.call_tool(tool, arguments)).structured_content)
        resource = await client.read_resource("revetly://surface")
        over_http.append(resource.contents[0].text)  # type: ignore[union-attr]
    async with stdio_client(acme) as client:
        for tool, arguments, _ in CASES:
            over_stdio.append((await client.call_tool(tool, arguments)).structured_content)
        resource = await client.read_resource("revetly://surface")
        over_stdio.append(resource.contents[0].text)  # type: ignore[union-attr]
    for (tool, _, _), h, s in zip(CASES, over_http, over_stdio, strict=False):
        assert h == s, tool
    assert over_http[-1] == over_stdio[-1]


async def test_the_same_tools_are_listed_over_both(acme: Path, serve: ServeFactory) -> None:
    served = serve(acme)
    async with http_client(served.url) as client:
        over_http = [t.model_dump() for t in (await client.list_tools()).tools]
    async with stdio_client(acme) as client:
        over_stdio = [t.model_dump() for t in (await client.list_tools()).tools]
    assert over_http == over_stdio


@pytest.mark.parametrize(("method", "path"), [("GET", "/sse"), ("POST", "/messages/"),
                                              ("POST", "/messages/?session_id=1")])
def test_the_sse_addresses_answer_404_naming_what_is_spoken(
        synced_instance: Path, serve: ServeFactory, method: str, path: str) -> None:
    served = serve(synced_instance)
    response = httpx.request(method, served.base + path)
    assert response.status_code == 404
    body = response.json()
    assert body["transport"] == "streamable-http"
    assert body["endpoint"] == "/mcp"
    assert "Streamable HTTP" in body["detail"]


def test_an_undeclared_origin_is_refused_naming_the_setting(
        synced_instance: Path, serve: ServeFactory) -> None:
    served = serve(synced_instance)
    response = httpx.post(served.url, json=INIT,
                          headers={**HEADERS, "Origin": "https://chat.elsewhere.example"})
    assert response.status_code == 403
    assert response.json()["setting"] == "served.allowed_origins"
    for path in ("/health", "/sse"):  # every request, not only the MCP path
        refused = httpx.get(served.base + path, headers={"Origin": "https://chat.elsewhere.example"})
        assert refused.status_code == 403


def test_a_declared_origin_is_served(synced_instance: Path, serve: ServeFactory) -> None:
    served = serve(synced_instance,
                   '[served]\nallowed_origins = ["https://chat.example.com"]\n')
    response = httpx.post(served.url, json=INIT,
                          headers={**HEADERS, "Origin": "https://chat.example.com"})
    assert response.status_code == 200
    assert response.headers["mcp-session-id"]


def _events(lines: list[str]) -> list[dict[str, object]]:
    return [json.loads(line[5:]) for line in lines if line.startswith("data:")]


def test_list_changed_arrives_on_the_standalone_get_stream_only(
        synced_instance: Path, serve: ServeFactory) -> None:
    served = serve(synced_instance)
    with httpx.Client(base_url=served.base, headers=HEADERS, timeout=30.0) as http:
        init = http.post("/mcp", json=INIT)
        sid = init.headers["mcp-session-id"]
        session = {"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        http.post("/mcp", headers=session,
                  json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        # the first call is made before any GET stream is attached: it is still told, once
        call = http.post("/mcp", headers=session, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "context_health", "arguments": {}}})
        on_post = _events(call.text.splitlines())
        assert [m.get("id") for m in on_post] == [2]
        assert all(m.get("method") is None for m in on_post)
        with http.stream("GET", "/mcp", headers={**session, "Accept": "text/event-stream"}) as get:
            assert get.status_code == 200
            for line in get.iter_lines():
                if line.startswith("data:"):
                    assert json.loads(line[5:])["method"] == "notifications/tools/list_changed"
                    break


async def test_each_session_writes_one_declared_line_naming_its_gate(
        synced_instance: Path, serve: ServeFactory) -> None:
    from mcp.types import Implementation

    served = serve(synced_instance)
    for _ in range(2):
        async with http_client(served.url, client_info=Implementation(name="acme-agent",
                                                                      version="1.4.0")) as client:
            await client.call_tool("context_health", {})
            await client.call_tool("context_health", {})
    lines = [x for x in served.server.output().splitlines() if "client declared:" in x]
    assert len(lines) == 2
    assert lines[0].startswith("revetly.declared: client declared: acme-agent 1.4.0 | ")
    assert "protocol=2025-11-25" in lines[0] and "gate=parked" in lines[0]
    assert lines[0].endswith("sessions from this client since start=1")
    assert lines[1].endswith("sessions from this client since start=2")
