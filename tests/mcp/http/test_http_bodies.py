"""How the endpoint answers a POST: a session the engine never asks anything mid-call gets JSON
bodies from its second request on; one that declared elicitation keeps an SSE stream per POST."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from revetly_mcp.session import asks_mid_call

from tests.mcp.http.served_handles import ServeFactory

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
CALL = {"jsonrpc": "2.0", "method": "tools/call",
        "params": {"name": "context_health", "arguments": {}}}


def _init(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                       "clientInfo": {"name": "raw-test", "version": "1"}}}


def _answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST, read as its content type says."""
    if response.headers["content-type"].startswith("application/json"):
        return response.json()  # type: ignore[no-any-return]
    events = [json.loads(line[5:]) for line in response.text.splitlines()
              if line.startswith("data:")]
    return next(e for e in events if "id" in e)


def _content_types(url: str, capabilities: dict[str, Any]) -> list[str]:
    """The content type of three tools/call answers on one session (each answered as id 2-4)."""
    with httpx.Client(headers=HEADERS, timeout=30.0) as http:
        init = http.post(url, json=_init(capabilities))
        session = {"mcp-session-id": init.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-11-25"}
        http.post(url, headers=session, json={"jsonrpc": "2.0",
                                              "method": "notifications/initialized"})
        kinds = []
        for request_id in (2, 3, 4):
            response = http.post(url, headers=session, json={**CALL, "id": request_id})
            assert response.status_code == 200
            answer = _answer(response)
            assert answer["id"] == request_id and "instance" in answer["result"][
                "structuredContent"]
            kinds.append(response.headers["content-type"].split(";")[0])
        return kinds


def test_a_client_that_declared_no_elicitation_gets_json_bodies_after_its_first_call(
        synced_instance: Path, serve: ServeFactory) -> None:
    served = serve(synced_instance)
    assert _content_types(served.url, {}) == [
        "text/event-stream", "application/json", "application/json"]


def test_a_client_that_declared_elicitation_keeps_a_stream_per_post(
        synced_instance: Path, serve: ServeFactory) -> None:
    served = serve(synced_instance)
    assert _content_types(served.url, {"elicitation": {"form": {}}}) == ["text/event-stream"] * 3


def test_only_a_declared_elicitation_lets_the_engine_ask_mid_call() -> None:
    assert asks_mid_call({"capabilities": {"elicitation": {}}})
    assert not asks_mid_call({"capabilities": {"roots": {}, "sampling": {}}})
    assert not asks_mid_call({"capabilities": None})
    assert not asks_mid_call({})
