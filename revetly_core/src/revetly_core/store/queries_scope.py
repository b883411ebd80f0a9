"""The store's queries behind get_scope: artifacts by id, deltas, drift and delivery records."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from revetly_core.model import COMMIT_TYPE, Artifact
from revetly_core.store.batches import batches, marks
from revetly_core.store.rows import plain_rows, row_to_artifact

_DATED_COLUMNS = ("id, title, type, status, source, source_path, created_at, source_updated_at, "
                  "ingested_at, deleted, deleted_at, deleted_clock")
_ITEM_COLUMNS = "id, type, title, status, source_updated_at"


class DatedRow(NamedTuple):
    """What deltas reads of a non-commit artifact: where it lives and every time it carries."""

    title: str
    type: str
    status: str | None
    source: str
    source_path: str | None
    created_at: str | None
    source_updated_at: str | None
    ingested_at: str | None
    deleted: int
    deleted_at: str | None
    deleted_clock: str | None


class ItemRow(NamedTuple):
    """What drift reads of a live work item before its delivery records are matched."""

    id: str
    type: str
    title: str
    status: str | None
    source_updated_at: str | None


HistoryChange = tuple[str, str, str, str, str]
"""(source, path, revision, at, change): one recorded change of a file. A plain tuple: deltas
scans tens of thousands of them per call."""


class DeliveryRow(NamedTuple):
    """A live delivery record, the item it delivers, and that item's stored criteria (JSON)."""

    record: Artifact
    item_id: str
    item_criteria: str


class ScopeQueries:
    """Mixin of the SQLite store: the reads the scope questions make."""

    conn: sqlite3.Connection

    def held_artifacts(self, ids: list[str]) -> dict[str, Artifact]:
        """The held artifacts among ids, whole, in id order."""
        out: dict[str, Artifact] = {}
        for part in batches(sorted(set(ids))):
            for row in self.conn.execute(f"SELECT * FROM artifacts WHERE id IN ({marks(part)})",
                                         tuple(part)):
                out[row["id"]] = row_to_artifact(row)
        return out

    def statement_texts(self, ids: list[str]) -> dict[str, str]:
        """artifact id -> the first (by statement id) statement extracted from it."""
        out: dict[str, str] = {}
        for part in batches(ids):
            for r in self.conn.execute(
                f"SELECT artifact_id, text FROM statements WHERE artifact_id IN ({marks(part)}) "
                f"ORDER BY id", tuple(part)):
                out.setdefault(r[0], r[1])
        return out

    def delivering_records(self, shas: list[str]) -> list[tuple[str, str, str]]:
        """(record, sha, story) for live records implemented by the commits, by record."""
        out: list[tuple[str, str, str]] = []
        for part in batches(shas):
            out.extend((r[0], r[1], r[2]) for r in self.conn.execute(
                f"SELECT l.src, l.dst, d.dst FROM links l JOIN artifacts a ON a.id=l.src "
                f"JOIN links d ON d.src=l.src AND d.relation='delivers' AND d.invalid_at IS NULL "
                f"WHERE l.relation='implemented_by' AND l.invalid_at IS NULL AND a.deleted=0 "
                f"AND l.dst IN ({marks(part)}) ORDER BY l.src", tuple(part)))
        return out

    def dated_rows_of(self, ids: list[str]) -> dict[str, DatedRow]:
        """id -> DatedRow of the non-commit artifacts among sorted ids, in id order."""
        out: dict[str, DatedRow] = {}
        for part in batches(ids):
            for r in plain_rows(self.conn, f"SELECT {_DATED_COLUMNS} FROM artifacts WHERE "
                                f"kind != 'commit' AND id IN ({marks(part)})", tuple(part)):
                out[r[0]] = DatedRow._make(r[1:])
        return out

    def dated_rows_in(self, project: str) -> dict[str, DatedRow]:
        """id -> DatedRow of a project's non-commit artifacts."""
        return {r[0]: DatedRow._make(r[1:]) for r in plain_rows(
            self.conn, f"SELECT {_DATED_COLUMNS} FROM artifacts WHERE kind != 'commit' "
            f"AND project=?", (project,))}

    def history_paths(self) -> set[tuple[str, str]]:
        """(source, path) of every file with recorded history."""
        return set(plain_rows(self.conn, "SELECT DISTINCT source, path FROM history"))

    def history_between(self, since: str | None, before: str | None) -> list[HistoryChange]:
        """Recorded changes with ``since <= at < before`` as text (either bound may be open)."""
        parts: list[str] = []
        params: list[str] = []
        if since is not None:
            parts.append("at >= ?")
            params.append(since)
        if before is not None:
            parts.append("at < ?")
            params.append(before)
        return list(plain_rows(
            self.conn, f"SELECT source, path, revision, at, change FROM history WHERE "
            f"{' AND '.join(parts) or '1'}", tuple(params)))

    def commit_times(self, projects: tuple[str, ...], clock: str) -> list[tuple[str, str | None]]:
        """(source, time) of the live commits of the projects, on the source or ingest clock."""
        column = "created_at" if clock == "source" else "ingested_at"
        return list(plain_rows(
            self.conn, f"SELECT source, {column} FROM artifacts WHERE kind='commit' AND "
            f"deleted=0 AND project IN ({marks(list(projects))})", projects))

    def unheld_targets(self) -> list[tuple[str, str]]:
        """(src, dst) of live links, implemented_by aside, to ids never ingested."""
        return list(plain_rows(
            self.conn, "SELECT l.src, l.dst FROM links l LEFT JOIN artifacts a ON a.id = l.dst "
            "WHERE l.invalid_at IS NULL AND a.id IS NULL AND l.relation != 'implemented_by'"))

    def live_items_of(self, ids: list[str]) -> list[ItemRow]:
        """The live work items among sorted ids, in id order."""
        out: list[ItemRow] = []
        for part in batches(ids):
            out.extend(map(ItemRow._make, plain_rows(
                self.conn, f"SELECT {_ITEM_COLUMNS} FROM artifacts WHERE kind='work-item' "
                f"AND deleted=0 AND id IN ({marks(part)})", tuple(part))))
        return out

    def live_items_in(self, project: str) -> list[ItemRow]:
        """A project's live work items, in id order."""
        return list(map(ItemRow._make, plain_rows(
            self.conn, f"SELECT {_ITEM_COLUMNS} FROM artifacts WHERE kind='work-item' "
            f"AND deleted=0 AND project=? ORDER BY id", (project,))))

    def live_deliveries(self) -> list[DeliveryRow]:
        """Every live delivery record with the item it delivers, by record then item."""
        return [DeliveryRow(row_to_artifact(r), r["delivers_id"], r["item_criteria"])
                for r in self.conn.execute(
            "SELECT a.*, l.dst AS delivers_id, i.criteria AS item_criteria FROM links l "
            "JOIN artifacts a ON a.id = l.src JOIN artifacts i ON i.id = l.dst "
            "WHERE l.relation='delivers' AND l.invalid_at IS NULL AND a.deleted=0 "
            "ORDER BY a.id, l.dst")]

    def newest_commits_naming(self, artifact_id: str, limit: int) -> list[Artifact]:
        """The live commits linked to an artifact, newest first, at most limit."""
        return [row_to_artifact(r) for r in self.conn.execute(
            "SELECT c.* FROM links l JOIN artifacts c ON c.id=l.src WHERE l.dst=? "
            "AND l.invalid_at IS NULL AND c.type=? AND c.deleted=0 GROUP BY c.id "
            "ORDER BY c.created_at DESC, c.id LIMIT ?", (artifact_id, COMMIT_TYPE, limit))]

    def commits_linked_to(self, artifact_id: str) -> list[str]:
        """Commits with a live link to an artifact, sorted, once each."""
        return [str(r[0]) for r in self.conn.execute(
            "SELECT DISTINCT a.id FROM links l JOIN artifacts a ON a.id = l.src "
            "WHERE l.dst = ? AND a.type = 'commit' AND l.invalid_at IS NULL ORDER BY a.id",
            (artifact_id,))]
