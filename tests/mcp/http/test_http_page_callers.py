"""Clients that run in a page: a declared origin gets the CORS answers it needs to keep its
session, an undeclared one is refused on every request and audited, and doctor names it.

The browser test serves a page from a second loopback server (another origin) and drives it
with headless chromium, so the cross-origin requests are the browser's own."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from revetly_core import Engine
from tests.mcp.http.browser import browser_context
from tests.mcp.http.served_handles import Served, ServeFactory
from tests.support.processes import free_port

pytestmark = pytest.mark.anyio

AUDIT = '[auth]\naudit_log = ".revetly/audit.jsonl"\n'

PAGE = """<!doctype html><meta charset="utf-8"><title>page client</title>
<script>
async function post(url, body, sid) {
  const headers = {"content-type": "application/json",
                   "accept": "application/json, text/event-stream"};
  if (sid) { headers["mcp-session-id"] = sid; headers["mcp-protocol-version"] = "2025-11-25"; }
  return fetch(url, {method: "POST", headers, body: JSON.stringify(body)});
}
function message(text) {
  const data = text.split("\\n").filter(l => l.startsWith("data:")).map(l => l.slice(5));
  return JSON.parse(data.length ? data[data.length - 1] : text);
}
async function connect(url) {
  try {
    const init = await post(url, {jsonrpc: "2.0", id: 1, method: "initialize", params: {
      protocolVersion: "2025-11-25", capabilities: {},
      clientInfo: {name: "page-client", version: "1"}}});
    const sid = init.headers.get("mcp-session-id");
    await init.text();
    await post(url, {jsonrpc: "2.0", method: "notifications/initialized"}, sid);
    const list = await post(url, {jsonrpc: "2.0", id: 2, method: "tools/list"}, sid);
    const tools = message(await list.text()).result.tools.map(t => t.name);
    return {session: sid, tools};
  } catch (e) {
    return {error: String(e)};
  }
}
</script>"""


@pytest.fixture()
def page_origin() -> Iterator[str]:
    """A second loopback server serving the page client: its origin is another origin."""
    body = PAGE.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def _connect_from_page(origin: str, served: Served) -> dict[str, Any]:
    async with browser_context() as context:
        page = await context.new_page()
        await page.goto(f"{origin}/client.html")
        result: dict[str, Any] = await page.evaluate("url => connect(url)", served.url)
        return result


async def test_a_page_at_a_declared_origin_keeps_its_session(
        synced_instance: Path, serve: ServeFactory, page_origin: str) -> None:
    served = serve(synced_instance, f'[served]\nallowed_origins = ["{page_origin}"]\n')
    result = await _connect_from_page(page_origin, served)
    assert result.get("session"), result  # the page could read the session id it was handed
    assert "search_context" in result["tools"]  # and its second and third calls kept it


async def test_a_page_at_an_undeclared_origin_is_refused_and_doctor_names_it(
        synced_instance: Path, serve: ServeFactory, page_origin: str) -> None:
    served = serve(synced_instance, AUDIT)
    result = await _connect_from_page(page_origin, served)
    assert "error" in result and "session" not in result
    report = Engine.open(synced_instance).doctor()
    (refused,) = report["served"]["origins_refused"]
    assert refused["origin"] == page_origin and refused["refused"] >= 1
    assert "origin-refused" in [w["code"] for w in report["warnings"]]


def test_a_declared_origins_preflight_names_the_transports_headers(
        synced_instance: Path, serve: ServeFactory) -> None:
    served = serve(synced_instance, '[served]\nallowed_origins = ["https://chat.example.com/"]\n')
    answer = httpx.options(served.url, headers={
        "Origin": "https://chat.example.com", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, mcp-session-id"})
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "https://chat.example.com"
    allowed = answer.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "mcp-session-id" in allowed
    init = httpx.post(served.url, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}},
        headers={"Origin": "https://chat.example.com", "Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream"})
    assert "mcp-session-id" in init.headers["access-control-expose-headers"].lower()


def test_every_refused_origin_request_is_one_audit_line(
        synced_instance: Path, serve: ServeFactory) -> None:
    served = serve(synced_instance, AUDIT)
    for path in ("/mcp", "/health"):
        assert httpx.get(served.base + path,
                         headers={"Origin": "https://chat.elsewhere.example"}).status_code == 403
    lines = [json.loads(x) for x in
             (synced_instance / ".revetly" / "audit.jsonl").read_text().splitlines()]
    assert [(x["outcome"], x["origin"], x["request"]) for x in lines] == [
        ("refused:origin_refused", "https://chat.elsewhere.example", "GET /mcp"),
        ("refused:origin_refused", "https://chat.elsewhere.example", "GET /health")]
    assert all(x["sub"] is None for x in lines)
