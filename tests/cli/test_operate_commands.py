"""doctor, watch, backfill, migrate, audit-links and manual as a user runs them: subprocesses."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli_app import STORY, commit_all, revetly

WAIT_S = 120
"""The longest a test waits for a watcher's next line before it gives up (a bound, not a
measurement: nothing asserts how long anything took)."""


@pytest.fixture()
def synced(tmp_path: Path) -> Path:
    root = tmp_path / "inst"
    assert revetly("init", str(root)).returncode == 0
    (root / "backlog" / "STORY-0001.md").write_text(STORY)
    commit_all(root, "add a story")
    assert revetly("sync", "--instance", str(root)).returncode == 0
    return root


def test_version_is_on_the_parent_command() -> None:
    out = revetly("--version")
    assert out.returncode == 0
    assert "revetly-core" in out.stdout and "revetly-cli" in out.stdout


def test_flags_render_as_flags_in_help() -> None:
    for args in (("--help",), ("sync", "--help"), ("manual", "--help")):
        out = revetly(*args, env={"COLUMNS": "100"})
        assert out.returncode == 0
        assert "<bool>" not in out.stdout, args


def test_doctor_json_is_the_core_payload(synced: Path) -> None:
    out = revetly("doctor", "--instance", str(synced), "--json")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["ok"] is True
    assert {s["source"] for s in payload["sources"]} == {"repository"}
    assert len(payload["connect"]) == 4


def test_doctor_prints_a_connect_line_per_client(synced: Path) -> None:
    out = revetly("doctor", "--instance", str(synced), env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    assert "claude-code (terminal CLI)" in out.stdout
    assert "-m revetly_mcp --instance" in out.stdout
    assert "no warnings" in out.stdout


def test_doctor_exits_1_on_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    assert revetly("init", str(root)).returncode == 0
    out = revetly("doctor", "--instance", str(root))
    assert out.returncode == 1
    assert "not-synced" in out.stdout


def test_doctor_names_a_refused_origin_and_the_setting_in_its_fix(synced: Path) -> None:
    from revetly_core.auth import AuditLog
    from revetly_core.auth.origins import origin_refused_line

    config = synced / "revetly.toml"
    config.write_text(config.read_text() + '\n[auth]\naudit_log = ".revetly/audit.jsonl"\n')
    AuditLog(synced / ".revetly" / "audit.jsonl").append(
        origin_refused_line("https://chat.example.com", "POST", "/mcp"))
    out = revetly("doctor", "--instance", str(synced), env={"COLUMNS": "200"})
    assert out.returncode == 1, out.stderr
    assert "Served endpoint" in out.stdout and "refused: https://chat.example.com x1" in out.stdout
    assert "origin-refused" in out.stdout


def test_audit_links_and_migrate_dry_run(synced: Path) -> None:
    audit = json.loads(revetly("audit-links", "--instance", str(synced), "--json").stdout)
    assert set(audit["by_method"]) >= {"explicit-ref", "title-mention", "declared", "inferred"}
    plan = json.loads(revetly("migrate", "--dry-run", "--instance", str(synced), "--json").stdout)
    assert plan["steps"] == [] and plan["migrated"] is False


def test_backfill_dry_run_without_a_floor_says_so(synced: Path) -> None:
    out = revetly("backfill", "--dry-run", "--instance", str(synced))
    assert out.returncode == 0, out.stderr
    assert "no commits source declares a `since` floor" in out.stdout


def test_backfill_refuses_a_bad_date_by_flag(synced: Path) -> None:
    out = revetly("backfill", "--dry-run", "--to", "last week", "--instance", str(synced))
    assert out.returncode == 2
    assert "--to" in out.stderr and "Traceback" not in out.stderr


def test_manual_lists_and_shows_topics_offline() -> None:
    listed = revetly("manual", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "commands" in {t["topic"] for t in json.loads(listed.stdout)["topics"]}
    page = revetly("manual", "show", "connecting")
    assert page.returncode == 0
    assert page.stdout.startswith("# Connecting an agent host")
    missing = revetly("manual", "show", "nope")
    assert missing.returncode == 2 and "unknown-topic" in missing.stderr


def test_refusal_hints_name_commands_not_mcp_tools(synced: Path) -> None:
    out = revetly("inspect", "STORY-0099", "--instance", str(synced))
    assert out.returncode == 2
    assert "search_context" not in out.stderr and "list_backlog" not in out.stderr
    assert "`revetly search`" in out.stderr


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _next_event(lines: queue.Queue[str], kind: str) -> dict[str, Any]:
    while True:
        event: dict[str, Any] = json.loads(lines.get(timeout=WAIT_S))
        if event["event"] == kind:
            return event


def test_watch_runs_a_pass_on_change_and_marks_freshness_while_it_runs(synced: Path) -> None:
    from revetly_core import Engine

    env = {k: v for k, v in os.environ.items() if k != "REVETLY_INSTANCE"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "revetly_cli", "watch", "--instance", str(synced), "--json",
         "--debounce", "200"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env)
    try:
        lines = _lines(proc)
        _next_event(lines, "watching")
        _next_event(lines, "pass")  # the pass it runs at start
        assert Engine.open(synced).context_health()["freshness"]["watch"] is True
        assert Engine.open(synced).search_context("invoices")["freshness"]["watch"] is True
        (synced / "backlog" / "STORY-0002.md").write_text(
            STORY.replace("STORY-0001", "STORY-0002").replace("Export invoices", "Import"))
        event = _next_event(lines, "pass")
        while event["changed"].get("added", 0) == 0:
            event = _next_event(lines, "pass")
        assert event["changed"]["added"] == 1
        proc.send_signal(signal.SIGTERM)
        stopped = _next_event(lines, "stopped")
        assert stopped["passes"] >= 2
        assert proc.wait(timeout=WAIT_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=WAIT_S)
    assert Engine.open(synced).context_health()["freshness"]["watch"] is False
    assert not (synced / ".revetly" / "watch.json").exists()
