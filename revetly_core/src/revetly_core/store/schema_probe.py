"""What `revetly migrate` reads of a context.db before any step: opened read-only, unmigrated."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RereadFacts:
    """Artifacts held per source, and when the last finished full pass started and ended."""

    by_source: dict[str, int]
    last_full: tuple[str | None, str | None] | None


class SchemaProbe:
    """A read-only look at a store whose schema may be older than this engine's."""

    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def __enter__(self) -> SchemaProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    def stored_schema(self) -> int | None:
        """The schema version the store records (None for a store that predates versions)."""
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError:
            return None
        return None if row is None else int(row[0])

    def reread_facts(self) -> RereadFacts:
        """What a full re-read would cover, and the timing of the last full pass."""
        by_source = {r[0]: r[1] for r in self.conn.execute(
            "SELECT source, COUNT(*) FROM artifacts GROUP BY source ORDER BY source")}
        last = self.conn.execute(
            "SELECT started_at, ended_at FROM passes WHERE full=1 AND outcome != 'running' "
            "AND ended_at IS NOT NULL ORDER BY pass_id DESC LIMIT 1").fetchone()
        return RereadFacts(by_source, None if last is None else (last[0], last[1]))
