"""The store's queries behind list_backlog: the keys of the matching items, then one page, and
the items a tracker's type maps left outside the backlog (the ``outside_backlog`` block)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from revetly_core.model import Artifact
from revetly_core.store.batches import batches, marks
from revetly_core.store.rows import COMPACT_COLUMNS, row_to_artifact


@dataclass(frozen=True)
class ItemFilter:
    """Which artifacts a backlog page lists: types, statuses and provenances (empty: any),
    the projects reached, and the deleted mode (None: live only, 'only', 'include')."""

    types: tuple[str, ...]
    statuses: tuple[str, ...]
    provenances: tuple[str, ...]
    projects: tuple[str, ...]
    deleted: str | None


OUTSIDE_SQL = "deleted=0 AND json_extract(metadata, '$.untyped_why') IS NOT NULL"
"""A live item ingest stored outside the backlog: no type map covered it (connectors say why)."""
ID_ORDER_SQL = ("upper(substr(id, 1, instr(id, '-') - 1)), "
                "CAST(substr(id, instr(id, '-') + 1) AS INTEGER), id")
"""Ids by family, then number (SQLite reads the number's leading digits), then as held."""


def _deleted_sql(deleted: str | None) -> str:
    """The condition a deleted mode puts on the artifacts table."""
    if deleted == "include":
        return "1"
    return "deleted=1" if deleted == "only" else "deleted=0"


class BacklogQueries:
    """Mixin of the SQLite store: the reads list_backlog makes."""

    conn: sqlite3.Connection

    def matching_items(self, f: ItemFilter) -> list[tuple[str, str]]:
        """(id, type) of every artifact the filter matches, in no order."""
        clauses = [_deleted_sql(f.deleted)]
        params: list[str] = []
        for column, values in (("type", f.types), ("status", f.statuses),
                               ("provenance", f.provenances), ("project", f.projects)):
            if values or column == "project":
                clauses.append(f"{column} IN ({marks(list(values))})")
                params.extend(values)
        return [(r[0], r[1]) for r in self.conn.execute(
            f"SELECT id, type FROM artifacts WHERE {' AND '.join(clauses)}", tuple(params))]

    def compact_artifacts(self, ids: list[str]) -> dict[str, Artifact]:
        """id -> the held artifact, its body read as '' (what a compact row serves)."""
        out: dict[str, Artifact] = {}
        for part in batches(ids):
            for r in self.conn.execute(
                f"SELECT {COMPACT_COLUMNS} FROM artifacts WHERE id IN ({marks(part)})", tuple(part)
            ):
                out[r["id"]] = row_to_artifact(r)
        return out

    def outside_head(self, projects: tuple[str, ...], limit: int) -> tuple[int, list[str]]:
        """(how many, the first ``limit`` ids; ``limit`` at least 1) of the live items of the
        projects no type map covered, in id order: family, number (GH-2 before GH-10), id."""
        rows = self.conn.execute(
            f"SELECT id, COUNT(*) OVER () FROM artifacts WHERE {OUTSIDE_SQL} "
            f"AND project IN ({marks(list(projects))}) "
            f"ORDER BY {ID_ORDER_SQL} LIMIT ?", (*projects, limit)).fetchall()
        return (int(rows[0][1]) if rows else 0), [str(r[0]) for r in rows]

    def outside_counts(self) -> list[tuple[str, str, str, int]]:
        """(source, project, why, how many) of the live items no type map covered."""
        return [(r[0], r[1], r[2], r[3]) for r in self.conn.execute(
            "SELECT source, project, json_extract(metadata, '$.untyped_why') AS why, COUNT(*) "
            f"FROM artifacts WHERE {OUTSIDE_SQL} GROUP BY source, project, why "
            "ORDER BY source, project, why")]
