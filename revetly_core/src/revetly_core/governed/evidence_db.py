"""The evidence vault's SQLite connection, where a damaged database file is a refusal.

SQLite reports a truncated or overwritten file as a DatabaseError ("disk I/O error", "file is
not a database", "database disk image is malformed") at whichever statement first touches the
damaged page. Every statement of the vault goes through this connection, so any of them fails
closed with the same integrity refusal the checkpoint checks give, never as an internal error.
A database held by another writer is the busy refusal: nothing is damaged, and a retry may pass.

Durability (ADR 0037): ``process`` (the default) makes a commit survive the death of the
process that made it, kill -9 included: SQLite's WAL with ``synchronous=NORMAL`` and checkpoint
files renamed into place without fsync, both in the kernel's page cache before the call
returns. ``power`` adds the fsyncs that make each commit survive a power loss too
(``synchronous=FULL``, fsynced checkpoint files and folder), at the disk's fsync cost.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, get_args

from revetly_core.refusal import Refusal
from revetly_core.writes.files import SECRET_MODE, atomic_write

Durability = Literal["process", "power"]
DURABILITIES: tuple[str, ...] = get_args(Durability)
DEFAULT_DURABILITY: Durability = "process"

RESTORE_FIX = "restore the complete home (database, keys and .feedback-checkpoints) from one backup"


def check_durability(durability: str) -> Durability:
    """A vault's durability is one of DURABILITIES; anything else is refused."""
    if durability not in DURABILITIES:
        raise Refusal("bad_durability", f"{durability!r} is not a vault durability",
                      f"use one of {', '.join(DURABILITIES)}")
    return durability  # type: ignore[return-value]


def synchronous_level(durability: Durability) -> str:
    """SQLite's synchronous setting for a durability: NORMAL survives a process kill in WAL
    mode (a commit is in the OS before it returns), FULL also fsyncs the WAL at each commit."""
    return "FULL" if durability == "power" else "NORMAL"


def write_anchor(path: Path, data: bytes, durability: Durability) -> None:
    """Write a checkpoint file atomically (0600); fsynced with its folder only for ``power``."""
    atomic_write(path, data, mode=SECRET_MODE, durable=durability == "power")


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

    def __init__(self, path: Path, durability: Durability = DEFAULT_DURABILITY) -> None:
        self.path = path
        self.durability = check_durability(durability)
        try:
            self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except sqlite3.DatabaseError as exc:
            raise database_refusal(path, exc) from None

    def set_durability(self) -> None:
        """Put the database in WAL mode at this connection's synchronous level (run once the
        file is known to be a vault's)."""
        self.execute("PRAGMA journal_mode=WAL")
        self.execute(f"PRAGMA synchronous={synchronous_level(self.durability)}")

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
