"""`revetly supervise`: a crashed endpoint comes back, a refusal is not retried, SIGTERM stops it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from processes import READY_WITHIN, free_port


def _health(port: int) -> dict[str, object] | None:
    try:
        response = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
    except httpx.HTTPError:
        return None
    return response.json() if response.status_code == 200 else None  # type: ignore[no-any-return]


def _until_pid(port: int, not_pid: int | None = None) -> int:
    """The endpoint's pid once its health answers (from a process other than not_pid)."""
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline:
        if _health(port) is not None:
            pid = _listener_pid(port)
            if pid is not None and pid != not_pid:
                return pid
        time.sleep(0.2)
    raise AssertionError("the endpoint never answered")


def _listener_pid(port: int) -> int | None:
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True)
    for part in out.stdout.split("pid=")[1:]:
        return int(part.split(",")[0])
    return None


def test_a_crashed_endpoint_is_restarted_and_sigterm_stops_both(
        synced_instance: Path, tmp_path: Path) -> None:
    port = free_port()
    log = (tmp_path / "supervise.log").open("wb")
    supervisor = subprocess.Popen([sys.executable, "-m", "revetly_cli", "supervise", "--port",
                                   str(port), "--instance", str(synced_instance)],
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        first = _until_pid(port)
        os.kill(first, signal.SIGKILL)
        second = _until_pid(port, not_pid=first)
        assert second != first
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=60) == 0
        assert _health(port) is None and _listener_pid(port) is None
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
