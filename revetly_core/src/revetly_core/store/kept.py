"""Read-only stores kept open per thread, for the read that comes most often (search)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from revetly_core.store.db import SQLiteStore

KEPT_CACHE_KIB = 16_384
"""The page cache of a kept store's connection, in KiB (SQLite's default is 2,000): search reads
the hits' rows, links and statements from pages the next search reads again (bounded; filled as
pages are read)."""
FileIdentity = tuple[int, int, int]
"""(device, inode, change time) of a database file: another value means the file was replaced
(a freed inode can be reused by the next file, its change time then differs) or checkpointed."""


def file_identity(path: Path) -> FileIdentity | None:
    """The file's (device, inode, change time in ns), or None when it is absent."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


class KeptReaders:
    """One read-only store per thread, kept open across calls.

    A fresh connection starts with a cold page cache and an unparsed schema, which costs about
    as much as a small search. A kept store is reopened when the database file is another one
    (removed and rebuilt) or was written in place (a pass's checkpoint); when the file is absent,
    opening refuses as it always did."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def get(self) -> SQLiteStore:
        """This thread's store, opened now when it has none or its file was replaced."""
        ident = file_identity(self.path)
        kept: tuple[FileIdentity, SQLiteStore] | None = getattr(self._local, "kept", None)
        if kept is not None and ident is not None and kept[0] == ident:
            return kept[1]
        if kept is not None:
            self._local.kept = None
            kept[1].close()
        store = SQLiteStore(self.path, readonly=True)  # refuses `not-synced` when absent
        store.conn.execute(f"PRAGMA cache_size = -{KEPT_CACHE_KIB}")
        opened = ident if ident is not None else file_identity(self.path)
        if opened is not None:
            self._local.kept = (opened, store)
        return store
