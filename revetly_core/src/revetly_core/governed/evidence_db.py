"""The evidence vault's SQLite connection, where a damaged database file is a refusal.

SQLite reports a truncated or overwritten file as a DatabaseError ("disk I/O error", "file is
not a database", "database disk image is malformed") at whichever statement first touches the
damaged page. Every statement of the vault goes through this connection, so any of them fails
closed with the same integrity refusal the checkpoint checks give, never as an internal error.
A database held by another writer is the busy refusal: nothing is damaged, and a retry may pass.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from revetly_core.refusal import Refusal

RESTORE_FIX = "restore the complete home (database, keys and .feedback-checkpoints) from one backup"


def integrity_refusal(detail: str) -> Refusal:
    """The vault's fail-closed answer: its evidence does not add up, restore it from a backup."""
    return Refusal("evidence_integrity", detail, RESTORE_FIX)


def database_refusal(path: Path, error: sqlite3.DatabaseError) -> Refusal:
    """What a SQLite error on the evidence database means: busy (retry) or damaged (restore)."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return Refusal("evidence_busy", f"the evidence database {path} is busy: {text}",
                       "retry; another process holds the vault's write lock")
    return integrity_refusal(f"the evidence database {path} is damaged or not a vault "
                             f"database (SQLite: {text})")


class GuardedCursor:
    """A cursor whose fetches answer a damaged page with the integrity refusal."""

    def __init__(self, cursor: sqlite3.Cursor, path: Path) -> None:
        self._cursor = cursor
        self._path = path

    def fetchone(self) -> Any:
        try:
            return self._cursor.fetchone()
        except sqlite3.DatabaseError as exc:
            raise database_refusal(self._path, exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return self._cursor.fetchall()
        except sqlite3.DatabaseError as exc:
            raise database_refusal(self._path, exc) from None

    def __iter__(self) -> Iterator[Any]:
        while (row := self.fetchone()) is not None:
            yield row


class EvidenceDatabase:
    """One autocommit SQLite connection to a vault's evidence.db, every error a refusal."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except sqlite3.DatabaseError as exc:
            raise database_refusal(path, exc) from None

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> GuardedCursor:
        """Run one statement; its rows are fetched through the guarded cursor."""
        try:
            return GuardedCursor(self._conn.execute(sql, parameters), self.path)
        except sqlite3.DatabaseError as exc:
            raise database_refusal(self.path, exc) from None

    def executescript(self, script: str) -> None:
        """Run a script of statements (the schema)."""
        try:
            self._conn.executescript(script)
        except sqlite3.DatabaseError as exc:
            raise database_refusal(self.path, exc) from None

    def close(self) -> None:
        self._conn.close()
