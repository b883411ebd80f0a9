"""A raw-bytes client for the stdio server: write lines, read the answers, nothing in between."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "1"}},
}


class RawServer:
    """`revetly-mcp` as a subprocess whose stdin and stdout are plain byte pipes."""

    def __init__(self, root: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "revetly_mcp", "--instance", str(root), *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.notifications: list[dict[str, Any]] = []

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_json(self, message: dict[str, Any]) -> None:
        self.send(json.dumps(message).encode() + b"\n")

    def receive(self) -> dict[str, Any]:
        """The next response; notifications on the way are kept in self.notifications."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its stdout"
            answer: dict[str, Any] = json.loads(line)
            if "method" in answer and "id" not in answer:
                self.notifications.append(answer)
                continue
            return answer

    def ask(self, data: bytes) -> dict[str, Any]:
        self.send(data)
        return self.receive()

    def initialize(self) -> dict[str, Any]:
        self.send_json(INIT)
        answer = self.receive()
        self.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return code
