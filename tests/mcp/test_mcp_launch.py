"""`revetly-mcp` over stdio as a real subprocess: initialize answered before the SDK has loaded,
and everything sent meanwhile answered in order once it has (revetly_mcp.launch)."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from revetly_core import __version__
from tests.mcp.rawstdio import INIT, RawServer

pytestmark = pytest.mark.anyio

HANG_GUARD_S = 120.0
"""How long a read waits before the test fails as hung (a guard, not a measurement)."""

HELD_IMPORT = '''
import os, runpy, sys, time

release = sys.argv[1]


class HoldTheSdk:
    """Holds `import mcp` (in whichever thread asks) until the release file exists."""

    def find_spec(self, name, path=None, target=None):
        if name == "mcp":
            while not os.path.exists(release):
                time.sleep(0.01)
            sys.meta_path.remove(self)
        return None


sys.meta_path.insert(0, HoldTheSdk())
sys.argv = ["revetly-mcp", *sys.argv[2:]]
runpy.run_module("revetly_mcp", run_name="__main__", alter_sys=True)
'''


def line_of(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def receive(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    """The next line the server writes, parsed (the test fails if none comes: a hang guard)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], HANG_GUARD_S)
    assert ready, "the server wrote nothing"
    line = proc.stdout.readline()
    assert line, "the server closed its stdout"
    answer: dict[str, Any] = json.loads(line)
    return answer


async def test_the_sdks_stdio_client_initializes_lists_and_calls(synced_instance: Path) -> None:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "revetly_mcp", "--instance", str(synced_instance)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        health = await session.call_tool("context_health", {})
    assert init.protocol_version == "2025-11-25"
    assert init.server_info.name == "revetly" and init.server_info.version == __version__
    assert init.capabilities.tools is not None and init.capabilities.tools.list_changed is True
    assert init.instructions and "search_context" in init.instructions
    assert "search_context" in {t.name for t in tools.tools}
    assert health.structured_content is not None and not health.is_error


def test_requests_sent_before_the_sdk_is_ready_are_answered_in_order(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    server.send(line_of(INIT) + line_of({"jsonrpc": "2.0", "method": "notifications/initialized"})
                + b"".join(line_of({"jsonrpc": "2.0", "id": n, "method": method})
                           for n, method in ((2, "tools/list"), (3, "ping"), (4, "prompts/list"))))
    answers = [server.receive() for _ in range(4)]
    assert server.close() == 0
    assert [a["id"] for a in answers] == [1, 2, 3, 4]  # initialize answered once, then in order
    assert answers[0]["result"]["protocolVersion"] == "2025-11-25"
    assert "tools" in answers[1]["result"] and answers[2]["result"] == {}
    assert "prompts" in answers[3]["result"]


def test_initialize_is_answered_while_the_sdk_import_is_held(synced_instance: Path,
                                                              tmp_path: Path) -> None:
    script = tmp_path / "held.py"
    script.write_text(HELD_IMPORT)
    release = tmp_path / "release"
    proc = subprocess.Popen([sys.executable, str(script), str(release), "--instance",
                             str(synced_instance)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    try:
        proc.stdin.write(line_of(INIT))
        proc.stdin.flush()
        early = receive(proc)  # comes while `import mcp` cannot finish
        assert not release.exists()
        assert early["id"] == 1 and early["result"]["serverInfo"]["name"] == "revetly"
        proc.stdin.write(line_of({"jsonrpc": "2.0", "method": "notifications/initialized"})
                         + line_of({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        proc.stdin.flush()
        release.write_text("")
        listed = receive(proc)
        assert listed["id"] == 2 and "tools" in listed["result"]
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=HANG_GUARD_S) == 0
        assert proc.stdout is not None
        proc.stdout.close()


def test_a_first_frame_that_is_not_initialize_is_answered_by_the_sdk(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    pinged = server.ask(line_of({"jsonrpc": "2.0", "id": 7, "method": "ping"}))
    init = server.ask(line_of(INIT))
    assert server.close() == 0
    assert pinged == {"jsonrpc": "2.0", "id": 7, "result": {}}
    assert init["id"] == 1 and init["result"]["protocolVersion"] == "2025-11-25"


def test_an_unsupported_version_gets_the_sdks_negotiation(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    init = server.ask(line_of({**INIT, "params": {**INIT["params"], "protocolVersion": "1999-01-01"}}))
    listed = server.ask(line_of({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    assert server.close() == 0
    assert init["result"]["protocolVersion"] == "2025-11-25"
    assert "tools" in listed["result"]
