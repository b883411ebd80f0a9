"""`revetly doctor`: each source's read, the index, the proven clients' connect lines, warnings."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.operate.clients import CLIENT_TABLE, Declared, connect_line
from revetly_core.operate.doctor import (
    endpoint_answers,
    endpoint_warning,
    proxy_warning,
    state_warnings,
)

from tests.core.gitrepo import Instance

STDIO = Declared(stdio_command=["/usr/bin/python3", "-m", "revetly_mcp", "--instance", "/i"])


def test_doctor_reports_each_source_and_what_it_holds(floored: Instance) -> None:
    report = floored.engine().doctor()
    by = {s["source"]: s for s in report["sources"]}
    assert by["repository"]["reads"] is True
    assert by["repository"]["holds"]["artifacts"] == 3
    assert by["commits/app"]["holds"]["by_type"] == {"commit": 10}
    assert by["commits/app"]["floor"] == "2024-04-01"
    assert report["index"]["current"] is True
    assert report["ok"] is True and report["warnings"] == []


def test_one_connect_line_per_proven_client_and_no_other(floored: Instance) -> None:
    lines = floored.engine().doctor()["connect"]
    assert [line["client"] for line in lines] == [row.client for row in CLIENT_TABLE]


def test_an_unreadable_source_is_named_and_warned(floored: Instance, tmp_path: Path) -> None:
    import shutil

    shutil.rmtree(tmp_path / "app")
    report = floored.engine().doctor()
    (app,) = [s for s in report["sources"] if s["source"] == "commits/app"]
    assert app["reads"] is False
    assert [w["code"] for w in report["warnings"]] == ["source-unreadable"]
    assert report["ok"] is False


def test_an_instance_never_read_warns_not_synced(instance: Instance) -> None:
    report = instance.engine().doctor()
    assert report["index"] is None
    assert [w["code"] for w in report["warnings"]] == ["not-synced"]


def test_a_spawning_client_connects_over_stdio_with_nothing_to_declare() -> None:
    (code,) = [r for r in CLIENT_TABLE if r.client.startswith("claude-code")]
    line = connect_line(code, STDIO)
    assert line["address"] == {"transport": "stdio", "command": STDIO.stdio_command}
    assert line["needs"] == [] and line["ready"] is True
    assert line["gate"].startswith("elicitation")


def test_a_hosted_client_needs_an_endpoint_auth_and_its_registration_host() -> None:
    (chatgpt,) = [r for r in CLIENT_TABLE if r.client.startswith("openai-mcp")]
    line = connect_line(chatgpt, STDIO)
    assert line["ready"] is False
    assert any("serve --http" in n for n in line["needs"])
    assert any("chatgpt.com" in n for n in line["needs"])
    served = Declared(STDIO.stdio_command, public_url="https://r.example.com/mcp",
                      bind_url="http://127.0.0.1:8765/mcp", auth=True,
                      registration_hosts=("chatgpt.com",))
    assert connect_line(chatgpt, served)["needs"] == []
    assert connect_line(chatgpt, served)["address"]["url"] == "https://r.example.com/mcp"


def test_a_public_url_other_than_the_bind_warns_of_a_proxy() -> None:
    behind = Declared(STDIO.stdio_command, public_url="https://r.example.com/mcp",
                      bind_url="http://127.0.0.1:8765/mcp")
    found = proxy_warning(behind)
    assert found is not None and found["code"] == "behind-proxy"
    assert proxy_warning(STDIO) is None


def test_a_failed_pass_and_a_stale_index_are_warnings() -> None:
    health = {"context_health": {"error": "boom"}, "corpus_revision": 3,
              "index": {"current": False, "revision": 2}}
    assert [w["code"] for w in state_warnings(health)] == ["last-pass-failed", "index-behind"]


@pytest.fixture()
def http_endpoint() -> Iterator[str]:
    class Quiet(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(401)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    server.shutdown()
    server.server_close()


def test_an_endpoint_answering_401_answers(http_endpoint: str) -> None:
    assert endpoint_answers(http_endpoint) is True
    assert endpoint_warning(http_endpoint, True) is None


def test_an_endpoint_nobody_listens_on_is_a_warning() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    assert endpoint_answers(url) is False
    found = endpoint_warning(url, False)
    assert found is not None and found["code"] == "endpoint-not-answering"


def test_files_a_source_skipped_are_a_warning() -> None:
    from revetly_core.operate.doctor import problems_warning

    assert problems_warning("backlog-md/x", 0) is None
    found = problems_warning("backlog-md/x", 3)
    assert found is not None and found["code"] == "source-problems"
    assert "revetly check" in found["fix"]


def test_only_errors_make_the_source_problems_warning(tmp_path: Path) -> None:
    from revetly_core.connectors.base import FileProblem
    from revetly_core.operate.doctor import held_by_source
    from revetly_core.store.db import Store

    store = Store(tmp_path / "context.db")
    try:
        store.replace_problems("backlog-md/x", [], [
            FileProblem("backlog-md/x", "a.md", "duplicate-id", "second copy served",
                        severity="warning"),
            FileProblem("backlog-md/x", "b.md", "no-id-skipped", "no id anywhere"),
            FileProblem("backlog-md/x", "c.md", "bad-yaml", "never closed"),
        ], full=True)
        held = held_by_source(store)["backlog-md/x"]
    finally:
        store.close()
    assert held["problems"] == 3 and held["errors"] == 1


def _declare(inst: Instance, toml: str) -> None:
    config = inst.root / "revetly.toml"
    config.write_text(config.read_text() + "\n" + toml)


def test_doctor_lists_the_declared_origins_and_cannot_know_refusals_without_an_audit_log(
        floored: Instance) -> None:
    _declare(floored, '[served]\nallowed_origins = ["https://chat.example.com"]\n')
    served = floored.engine().doctor()["served"]
    assert served["allowed_origins"] == ["https://chat.example.com"]
    assert served["audit_log"] is None and served["origins_refused"] is None


def test_doctor_warns_of_each_origin_the_endpoint_refused_until_it_is_declared(
        floored: Instance) -> None:
    from revetly_core.auth import AuditLog
    from revetly_core.auth.origins import origin_refused_line

    _declare(floored, '[auth]\naudit_log = ".revetly/audit.jsonl"\n')
    log = AuditLog(floored.root / ".revetly" / "audit.jsonl")
    for _ in range(3):
        log.append(origin_refused_line("https://chat.example.com", "POST", "/mcp"))
    report = floored.engine().doctor()
    (refused,) = report["served"]["origins_refused"]
    assert refused["origin"] == "https://chat.example.com" and refused["refused"] == 3
    assert [w["code"] for w in report["warnings"]] == ["origin-refused"]
    assert report["ok"] is False
    _declare(floored, '[served]\nallowed_origins = ["https://chat.example.com"]\n')
    report = floored.engine().doctor()
    assert report["served"]["origins_refused"] == [] and report["ok"] is True


def test_an_audit_log_doctor_cannot_read_is_a_warning_not_a_crash(floored: Instance) -> None:
    _declare(floored, '[auth]\naudit_log = "audit-dir"\n')
    (floored.root / "audit-dir").mkdir()
    report = floored.engine().doctor()
    assert [w["code"] for w in report["warnings"]] == ["audit-log-unreadable"]
    assert report["served"]["origins_refused"] is None
