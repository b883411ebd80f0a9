"""The read-only switch: every read served, every write refused by name, nothing written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.mcp.http.http_clients import http_client
from tests.mcp.http.served_handles import ServeFactory

pytestmark = pytest.mark.anyio

WRITES = {
    "submit_draft": {"title": "t", "description": "d", "acceptance_criteria": ["c"]},
    "record_conversation": {"title": "t", "body": "b"},
    "set_status": {"artifact_id": "STORY-0001", "status": "done"},
    "resolve_review": {"review_id": "REV-0123456789abcdef", "decision": "approve"},
}


def _head(root: Path) -> str:
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("how", ["flag", "setting"])
async def test_a_read_only_endpoint_refuses_every_write_by_name(
        writable: Path, serve: ServeFactory, how: str) -> None:
    before = _head(writable)
    served = (serve(writable, "", "--read-only") if how == "flag"
              else serve(writable, "[served]\nread_only = true\n"))
    async with http_client(served.url) as client:
        read = (await client.call_tool("get_artifact", {"artifact_id": "STORY-0001"}))
        assert "refusal" not in (read.structured_content or {})
        for tool, arguments in WRITES.items():
            answer = (await client.call_tool(tool, arguments)).structured_content or {}
            assert answer["refusal"]["code"] == "read-only", tool
            assert answer["refusal"]["tool"] == tool
            assert answer["refusal"]["wrote"] is False
    assert _head(writable) == before
