"""The audit trail of a served endpoint: one line per call, appended, never rewritten."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("revetly.audit")

AUDIT_TAIL_BYTES = 4 * 1024 * 1024
"""How much of the audit log doctor reads back: its newest 4 MiB, never the whole file."""


def outcome_of(payload: Mapping[str, Any]) -> str:
    """What a call came to: `refused:<code>` for a refusal, the answer's status where it
    states one (awaiting-review, refused, ...), else `ok`."""
    refusal = payload.get("refusal")
    if isinstance(refusal, Mapping):
        return f"refused:{refusal.get('code', 'unknown')}"
    status = payload.get("status")
    return status if isinstance(status, str) else "ok"


def project_of(payload: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """The project a call answered as: the answer's own, else the one it asked for."""
    for source in (payload, payload.get("refusal") or {}, arguments):
        if isinstance(source, Mapping):
            for key in ("project", "projects"):
                value = source.get(key)
                if isinstance(value, str):
                    return value
                if isinstance(value, list):
                    return ",".join(str(v) for v in value)
    return None


def audit_line(subject: Mapping[str, Any] | None, tool: str, project: str | None,
               outcome: str, *, at: dt.datetime | None = None) -> dict[str, Any]:
    """One audit record: when, subject, issuer, tool, project, outcome (anonymous on loopback)."""
    when = (at or dt.datetime.now(dt.UTC)).isoformat(timespec="milliseconds")
    subject = subject or {}
    line: dict[str, Any] = {"at": when, "sub": subject.get("sub"), "iss": subject.get("iss"),
                            "tool": tool, "project": project, "outcome": outcome}
    for key in ("name", "email"):
        if subject.get(key):
            line[key] = subject[key]
    return line


def audit_log_path(root: Path, declared: str) -> Path:
    """Where `[auth] audit_log` points: an absolute path as written, a relative one inside the
    instance (never the directory the server happened to start in)."""
    path = Path(declared).expanduser()
    return path if path.is_absolute() else root / path


@dataclass
class AuditLog:
    """An append-only JSON-lines file the operator names ([auth] audit_log).

    Each line is written with one O_APPEND write, so concurrent writers never interleave a
    line; a failed write is reported on the revetly.audit logger and never fails the call."""

    path: Path
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def append(self, line: Mapping[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
            except OSError as exc:
                log.error("audit line not written to %s: %s", self.path, exc)

    def lines(self, max_bytes: int | None = None) -> list[dict[str, Any]]:
        """The lines on record, read from at most the last `max_bytes` of the file (the
        newest lines; AUDIT_TAIL_BYTES by default); a torn or cut line is skipped."""
        limit = AUDIT_TAIL_BYTES if max_bytes is None else max_bytes
        try:
            with self.path.open("rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                start = max(0, size - limit)
                handle.seek(start)
                data = handle.read(size - start)
        except FileNotFoundError:
            return []
        raw_lines = data.split(b"\n")
        if start > 0:
            raw_lines = raw_lines[1:]  # the first is a line cut by the window
        out: list[dict[str, Any]] = []
        for raw in raw_lines:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict):
                out.append(line)
        return out
