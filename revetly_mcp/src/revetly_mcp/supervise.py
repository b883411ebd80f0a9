"""`revetly supervise`: the served endpoint as a child process, restarted when it crashes.

The child is `python -m revetly_mcp --http …`. A crash (any exit but 0 and the refusal status
2) restarts it after a backoff (revetly_core.auth.supervision); a refusal is a setting to fix
and ends the supervisor with the child's status. SIGTERM or SIGINT is passed to the child,
which stops gracefully, and the supervisor exits 0. The child answers /health itself.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from types import FrameType

from revetly_core.auth import backoff_delay, next_attempt, should_restart

STOP_GRACE = 20.0
"""Seconds the child has to stop after SIGTERM before it is killed."""


def child_command(argv: Sequence[str]) -> list[str]:
    """The endpoint the supervisor runs: `revetly-mcp --http` with the given options."""
    return [sys.executable, "-m", "revetly_mcp", "--http", *argv]


def supervise(argv: Sequence[str]) -> int:
    """Run the endpoint until asked to stop; restart it with backoff when it crashes."""
    stop = threading.Event()
    current: list[subprocess.Popen[bytes]] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()
        for child in current:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    attempt = 0
    try:
        while not stop.is_set():
            started = time.monotonic()
            child = subprocess.Popen(child_command(argv))
            current[:] = [child]
            sys.stderr.write(f"revetly supervise: endpoint started (pid {child.pid})\n")
            sys.stderr.flush()
            code = _wait(child, stop)
            sys.stderr.write(f"revetly supervise: endpoint exited {code}\n")
            if not should_restart(code, stop.is_set()):
                return 0 if stop.is_set() else code
            attempt = next_attempt(attempt, time.monotonic() - started)
            delay = backoff_delay(attempt)
            sys.stderr.write(f"revetly supervise: restarting in {delay:.0f} s "
                             f"(restart {attempt})\n")
            sys.stderr.flush()
            if stop.wait(delay):
                return 0
        return 0
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _wait(child: subprocess.Popen[bytes], stop: threading.Event) -> int:
    while True:
        try:
            return child.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            if stop.is_set():
                try:
                    return child.wait(timeout=STOP_GRACE)
                except subprocess.TimeoutExpired:
                    child.kill()
                    return child.wait()
