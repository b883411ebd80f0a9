"""`revetly supervise`: a crashed endpoint comes back, a refusal is not retried, SIGTERM stops it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.processes import READY_WITHIN, free_port


def _health(port: int) -> dict[str, object] | None:
    try:
        response = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
    except httpx.HTTPError:
        return None
    return response.json() if response.status_code == 200 else None  # type: ignore[no-any-return]


def _until_pid(port: int, log: Path, not_pid: int | None = None) -> int:
    """The endpoint's pid (from the supervisor's log) once its health answers, from a process
    other than not_pid."""
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline:
        pids = [int(m) for m in re.findall(rb"endpoint started \(pid (\d+)\)", log.read_bytes())]
        if pids and pids[-1] != not_pid and _health(port) is not None:
            return pids[-1]
        time.sleep(0.2)
    raise AssertionError(f"the endpoint never answered: {log.read_text(errors='replace')}")


def test_a_crashed_endpoint_is_restarted_and_sigterm_stops_both(
        synced_instance: Path, tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "supervise.log"
    log = log_path.open("wb")
    supervisor = subprocess.Popen([sys.executable, "-m", "revetly_cli", "supervise", "--port",
                                   str(port), "--instance", str(synced_instance)],
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        first = _until_pid(port, log_path)
        os.kill(first, signal.SIGKILL)
        second = _until_pid(port, log_path, not_pid=first)
        assert second != first
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=60) == 0
        assert _health(port) is None
        assert not Path(f"/proc/{second}").exists() or \
            "zombie" in Path(f"/proc/{second}/status").read_text()
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
        log.close()
    assert b"restarting in 1 s" in (tmp_path / "supervise.log").read_bytes()


def test_a_refusal_is_not_retried(synced_instance: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "revetly_cli", "supervise", "--host", "0.0.0.0",
                           "--port", str(free_port()), "--instance", str(synced_instance)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "auth.verifier" in done.stderr and "restarting" not in done.stderr
