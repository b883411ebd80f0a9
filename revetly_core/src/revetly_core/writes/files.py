"""Durable files: written to a temp file beside the target, fsynced, then renamed over it.

A temp file carries the pid of the process writing it (``.NAME.revetly-PID-RAND.tmp``), so a
file left by a process that was killed is told from one a live writer is still filling.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path

from revetly_core.processes import pid_alive
from revetly_core.writes.crash import crash_point

TEMP_MARK = ".revetly-"
_TEMP = re.compile(r"^\..+\.revetly-(\d+)-[0-9a-f]{8}\.tmp$")
SECRET_MODE = 0o600
"""The mode of a file holding a secret, whatever the umask."""


def current_umask() -> int:
    """The process umask, read without changing it where the kernel reports it."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # pragma: no cover - systems without /proc
    os.umask(mask)  # pragma: no cover
    return mask  # pragma: no cover


def default_mode(path: Path) -> int:
    """A changed file keeps its mode; a new one gets what the umask gives any new file."""
    with contextlib.suppress(OSError):
        return os.lstat(path).st_mode & 0o7777
    return 0o666 & ~current_umask()


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (a no-op where directories cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(str(folder), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def temp_name(path: Path) -> Path:
    """The temp file a write of path fills before it is renamed over path."""
    return path.parent / f".{path.name}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}.tmp"


def atomic_write(path: Path, data: bytes, *, mode: int | None = None,
                 crash: str | None = None, durable: bool = True) -> None:
    """Write data so a reader sees the old file or the new one, never half of either.

    mode is the file's permission bits (default: the umask's, or the file's own when it
    exists); crash names the fault-injection point between the fsynced temp and the rename.
    durable=False skips both fsyncs: the rename still survives a killed process (the kernel
    holds the bytes), not a power loss.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    bits = default_mode(path) if mode is None else mode
    tmp = temp_name(path)
    fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), bits)
            if durable:
                os.fsync(fh.fileno())
        if crash is not None:
            crash_point(crash)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)



def orphaned_temp_files(folder: Path) -> list[Path]:
    """Temp files in a folder whose writer is no longer alive (what a kill -9 leaves)."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for entry in folder.iterdir():
        m = _TEMP.match(entry.name)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            found.append(entry)
    return sorted(found)


def sweep_temp_files(folder: Path) -> list[str]:
    """Remove the temp files dead writers left in a folder; returns their names."""
    removed: list[str] = []
    for tmp in orphaned_temp_files(folder):
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed.append(tmp.name)
    return removed
