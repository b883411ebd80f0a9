"""Real servers for the tests: a free loopback port, a subprocess, and its readiness."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

READY_WITHIN = 60.0
"""Seconds a server may take to answer its health URL (the machine is shared and slow)."""


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One server subprocess, stopped with SIGTERM (then killed) when the test is done."""

    def __init__(self, argv: Sequence[str], health: str, log: Path) -> None:
        self.log = log
        self.handle = log.open("wb")
        self.proc = subprocess.Popen(list(argv), stdout=self.handle, stderr=subprocess.STDOUT)
        self.health = health

    def wait_ready(self) -> None:
        """Until the health URL answers 200; a server that exits first fails with its log."""
        deadline = time.monotonic() + READY_WITHIN
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.output()}")
            try:
                if httpx.get(self.health, timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server never answered {self.health}: {self.output()}")

    def output(self) -> str:
        self.handle.flush()
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.handle.close()
        return int(self.proc.returncode)


def python(*args: str) -> list[str]:
    return [sys.executable, *args]
