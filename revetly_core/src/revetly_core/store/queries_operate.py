"""The store's counting queries: health, check, doctor, audit-links and migrate."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple


class LinkAudit(NamedTuple):
    """Live links by (method, relation), retired links, and live links to ids never held."""

    live: list[tuple[str, str, int]]
    retired: int
    dangling: int


class OperateQueries:
    """Mixin of the SQLite store: whole-store counts the operating reads serve."""

    conn: sqlite3.Connection

    def unparsed_criteria_by_source(self) -> dict[str, int]:
        """source -> live artifacts with a criteria heading and no criterion under it."""
        return {r[0]: r[1] for r in self.conn.execute(
            "SELECT source, COUNT(*) FROM artifacts WHERE criteria_unparsed=1 AND deleted=0 "
            "GROUP BY source ORDER BY source")}

    def ids_and_types(self) -> list[tuple[str, str]]:
        """(id, type) of every held artifact, deleted ones too."""
        return [(r[0], r[1]) for r in self.conn.execute("SELECT id, type FROM artifacts")]

    def artifact_counts(self) -> list[tuple[str, str, bool, int]]:
        """(source, type, deleted, how many) over the artifacts table."""
        return [(r[0], r[1], bool(r[2]), r[3]) for r in self.conn.execute(
            "SELECT source, type, deleted, COUNT(*) FROM artifacts GROUP BY source, type, deleted")]

    def problem_counts(self) -> list[tuple[str, str, str | None, int]]:
        """(source, code, severity, how many) over the problems table."""
        return [(r[0], r[1], r[2], r[3]) for r in self.conn.execute(
            "SELECT source, code, severity, COUNT(*) FROM problems GROUP BY source, code, severity")]

    def link_audit(self, project: str | None) -> LinkAudit:
        """The link counts of one project's artifacts (or of all when None)."""
        where, params = ("1", ()) if project is None else (
            "src IN (SELECT id FROM artifacts WHERE project=?)", (project,))
        live = [(r[0], r[1], r[2]) for r in self.conn.execute(
            f"SELECT method, relation, COUNT(*) FROM links WHERE invalid_at IS NULL AND {where} "
            "GROUP BY method, relation ORDER BY method, relation", params)]
        retired = self.conn.execute(
            f"SELECT COUNT(*) FROM links WHERE invalid_at IS NOT NULL AND {where}", params
        ).fetchone()[0]
        dangling = self.conn.execute(
            f"SELECT COUNT(*) FROM links WHERE invalid_at IS NULL AND {where} AND dst NOT IN "
            "(SELECT id FROM artifacts)", params).fetchone()[0]
        return LinkAudit(live, int(retired), int(dangling))

    def artifact_count(self) -> int:
        """How many rows the artifacts table holds (deleted ones too)."""
        return int(self.conn.execute("SELECT COUNT(*) FROM artifacts").fetchone()[0])
