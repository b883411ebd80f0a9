"""Durable files: written to a temp file beside the target, fsynced, then renamed over it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (a no-op where directories cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(str(folder), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Write data so a reader sees the old file or the new one, never half of either."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


class FileBatch:
    """Files one write changes: each written atomically, all put back if the write fails."""

    def __init__(self) -> None:
        self._before: dict[Path, bytes | None] = {}

    def write(self, path: Path, data: bytes) -> None:
        """Write a file, remembering what it held (or that it did not exist) the first time."""
        if path not in self._before:
            self._before[path] = path.read_bytes() if path.exists() else None
        atomic_write(path, data)

    def rollback(self) -> None:
        """Put every file back as it was: new files removed, changed files restored."""
        for path, old in self._before.items():
            with contextlib.suppress(OSError):
                if old is None:
                    path.unlink(missing_ok=True)
                else:
                    atomic_write(path, old)
        self._before.clear()
