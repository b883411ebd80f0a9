"""The governed MCP server as a real subprocess: raw frames first, then the SDK's own client."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from revetly_core.governed.home import write_private_file
from revetly_mcp.protocol import INITIALIZE_FIRST

from revetly_core import EvidenceService, FeedbackService, RagHit, RagService, Scope, SQLiteRagProvider

# Run as a script, so it lives in tests/support: beside the tests/mcp/http package, that
# package would shadow the standard library's http in the script's sys.path.
APP = Path(__file__).resolve().parents[1] / "support" / "governed_app.py"
TOOLS = ["feedback_capabilities", "feedback_outcome", "feedback_propose_profile", "feedback_propose_rule",
         "feedback_quality", "feedback_report_outcome", "guarded_execute", "guarded_inspect", "guarded_tools",
         "rag_inspect", "rag_search", "rag_sources"]


def _init(version: str, request_id: object = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}


@pytest.fixture()
def home(tmp_path: Path) -> list[str]:
    """A home with one granted application credential and a sqlite-vault source of 40 passages;
    the server's argv (after the script) is returned."""
    evidence, owner = EvidenceService.create(tmp_path / "homes", "vault")
    feedback = FeedbackService(evidence)
    rag = RagService(feedback)
    provider = SQLiteRagProvider(feedback)
    scope = Scope("writer", "project")
    principal, token = evidence.principals.issue_credential(owner, "app")
    evidence.principals.grant(owner, principal, ["search", "inspect", "read", "report"], scope,
                              datetime.now(UTC) + timedelta(days=1))
    source = provider.source("law", scope, "statutes", "r1")
    rag.register(owner, source, provider)
    provider.put_documents(owner, source, [
        RagHit.make(source, f"doc{i}", "c1", f"Filing rule number {i}: returns are due in April. " * 5,
                    f"Law {i}", jurisdiction="XX", effective_from="2020-01-01") for i in range(40)])
    feedback.freeze_schedule(owner, scope, "weekly", ["t1", "t2"])
    credential = tmp_path / "app.token"
    write_private_file(credential, token.encode())
    rag.close()
    evidence.close()
    return [str(tmp_path / "homes"), "vault", str(credential), "writer", "project"]


class Raw:
    """The server as a subprocess with plain byte pipes."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen([sys.executable, str(APP), *argv], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def ask(self, data: bytes) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the server closed its stdout"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask_json(self, message: dict[str, Any]) -> dict[str, Any]:
        return self.ask(json.dumps(message).encode() + b"\n")

    def notify(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def close(self) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        return code


def _call(request_id: object, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def test_raw_frames_get_the_right_errors_and_the_server_stays_up(home: list[str]) -> None:
    raw = Raw(home)
    try:
        before = raw.ask_json({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert before["id"] == 1 and before["error"]["code"] == -32600
        call_before = raw.ask_json(_call(2, "rag_sources", {}))
        assert call_before["error"]["code"] == -32600

        for version in ("2024-11-05", "2025-03-26", "2026-07-28", "1999-01-01"):
            refused = raw.ask_json(_init(version, 3))
            assert refused["id"] == 3 and refused["error"]["code"] == -32602
            assert refused["error"]["data"] == {"supported": ["2025-06-18", "2025-11-25"],
                                                "requested": version}
        still_refused = raw.ask_json({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        assert still_refused["error"]["code"] == -32600

        for bad_id in (1.5, True, None, {"a": 1}, [1], 2**53, -(2**53), "x" * 257, "é" * 129):
            answer = raw.ask_json({"jsonrpc": "2.0", "id": bad_id, "method": "ping"})
            assert answer["error"]["code"] == -32600, bad_id
            assert answer["id"] is None

        pad = b"x" * (1024 * 1024)
        oversize = raw.ask(b'{"jsonrpc":"2.0","id":5,"method":"ping","pad":"' + pad + b'"}\n')
        assert oversize["error"]["code"] == -32600 and oversize["id"] is None
        assert raw.ask(b"{not json\n")["error"]["code"] == -32700

        ok = raw.ask_json(_init("2025-06-18", "init-1"))
        assert ok["id"] == "init-1" and ok["result"]["protocolVersion"] == "2025-06-18"
        raw.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})

        edge_ids: list[object] = [2**53 - 1, -(2**53 - 1), "y" * 256, "é" * 128]
        for request_id in edge_ids:
            assert raw.ask_json({"jsonrpc": "2.0", "id": request_id, "method": "ping"})["id"] == request_id

        listed = raw.ask_json({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
        assert sorted(t["name"] for t in listed["result"]["tools"]) == TOOLS

        found = raw.ask_json(_call(7, "rag_search", {"source": "law", "query": "filing rule 7", "key": "k1"}))
        receipt = found["result"]["structuredContent"]
        assert found["result"].get("isError") in (None, False)
        hit = receipt["hits"][0]
        shown = raw.ask_json(_call(8, "rag_inspect", {"receipt": receipt["receipt_id"],
                                                      "document": hit["document_id"], "chunk": "c1"}))
        assert shown["result"]["structuredContent"]["hit"] == hit

        conflict = raw.ask_json(_call(9, "rag_search", {"source": "law", "query": "other", "key": "k1"}))
        assert conflict["result"]["isError"] is True
        assert conflict["result"]["structuredContent"]["refusal"]["code"] == "idempotency_conflict"

        hostile = raw.ask_json(_call(10, "rag_inspect",
                                     {"receipt": "../../x", "document": "d", "chunk": "c"}))
        assert hostile["result"]["structuredContent"]["refusal"]["code"] == "bad_receipt_id"
    finally:
        assert raw.close() == 0


def test_a_result_over_budget_is_an_explicit_tool_error(home: list[str]) -> None:
    raw = Raw([*home, "3000"])
    try:
        raw.ask_json(_init("2025-11-25"))
        raw.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
        answer = raw.ask_json(_call(2, "rag_search", {"source": "law", "query": "filing", "key": "k",
                                                      "limit": 20}))
        assert answer["result"]["isError"] is True
        refusal = answer["result"]["structuredContent"]["refusal"]
        assert refusal["code"] == "result_budget_exhausted" and refusal["budget"] == 3000
        small = raw.ask_json(_call(3, "feedback_capabilities", {}))
        assert small["result"]["structuredContent"]["operations"] == ["inspect", "read", "report", "search"]
    finally:
        assert raw.close() == 0


async def _session_round(argv: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=[str(APP), *argv])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        report = await session.call_tool("feedback_report_outcome", {
            "outcome": {"run_id": "r1", "task_id": "t1", "status": "succeeded", "schedule_id": "weekly"},
            "key": "report-1"})
        outcome_id = report.structured_content["outcome_id"]  # type: ignore[index]
        outcome = await session.call_tool("feedback_outcome", {"id": outcome_id})
        quality = await session.call_tool("feedback_quality", {"schedule": "weekly"})
        sources = await session.call_tool("rag_sources", {})
        return {"version": init.protocol_version, "tools": sorted(t.name for t in tools.tools),
                "outcome": outcome.structured_content, "quality": quality.structured_content,
                "sources": sources.structured_content}


def test_the_sdk_client_drives_every_read_tool(home: list[str]) -> None:
    result = anyio.run(_session_round, home)
    assert result["version"] in ("2025-06-18", "2025-11-25")
    assert result["tools"] == TOOLS
    assert result["outcome"]["verification"] == "unverified"
    assert result["quality"]["observed"] == 1 and result["quality"]["rates"]["success"] == 1.0
    assert [s["source_id"] for s in result["sources"]["sources"]] == ["law"]


def test_unknown_tools_bad_arguments_and_big_ids_get_protocol_answers(home: list[str]) -> None:
    raw = Raw(home)
    try:
        early = raw.ask_json({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert early["error"]["message"] == INITIALIZE_FIRST
        assert early["error"]["data"] == {"method": "tools/list"}
        raw.ask_json(_init("2025-11-25"))
        raw.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for big in (2**80, "x" * 300_000):
            answer = raw.ask_json({"jsonrpc": "2.0", "id": big, "method": "ping"})
            assert answer["id"] is None and answer["error"]["code"] == -32600
        unknown = raw.ask_json(_call(2, "rag_delete_everything", {}))
        assert unknown["error"]["code"] == -32602
        assert unknown["error"]["data"] == {"tool": "rag_delete_everything"}
        wrong = raw.ask_json(_call(3, "rag_search", {"source": "law", "query": "filing", "key": "k9",
                                                     "limit": "ten"}))
        assert wrong["result"]["isError"] is True
        refusal = wrong["result"]["structuredContent"]["refusal"]
        assert refusal["code"] == "bad_argument" and refusal["argument"] == "limit"
        assert refusal["expected"] == "an integer"
        assert json.loads(wrong["result"]["content"][0]["text"]) == wrong["result"]["structuredContent"]
        missing = raw.ask_json(_call(4, "feedback_outcome", {}))
        assert missing["result"]["structuredContent"]["refusal"]["argument"] == "id"
        still = raw.ask_json(_call(5, "rag_sources", {}))
        assert [s["source_id"] for s in still["result"]["structuredContent"]["sources"]] == ["law"]
    finally:
        assert raw.close() == 0
