"""The store's queries behind get_artifact: commits naming it, its links, history and children."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Literal, NamedTuple

from revetly_core.store.batches import batches, marks
from revetly_core.store.rows import COMPACT_COLUMNS, row_to_artifact

if TYPE_CHECKING:
    from revetly_core.model import Artifact

LinkState = Literal["live", "retired", "any"]
_STATE_SQL: dict[LinkState, str] = {
    "live": "invalid_at IS NULL", "retired": "invalid_at IS NOT NULL", "any": "1",
}


class NamingCommit(NamedTuple):
    """A live commit whose message names an artifact, and the link's detail (JSON text)."""

    sha: str
    subject: str
    created_at: str | None
    detail: str | None


class LinkRow(NamedTuple):
    """One link of an artifact's record, seen from it: ``direction`` is 'out' or 'in'."""

    src: str
    dst: str
    relation: str
    method: str
    detail: str | None
    invalid_at: str | None
    direction: str


class HistoryRow(NamedTuple):
    """One entry of a file's history as the read pass recorded it."""

    revision: str
    at: str
    change: str
    author: str | None
    summary: str | None


class ArtifactQueries:
    """Mixin of the SQLite store: the reads get_artifact makes."""

    conn: sqlite3.Connection

    def commit_ids_from(self, prefix: str, limit: int) -> list[str]:
        """Commit ids starting with a lowercase hex prefix, sorted, at most ``limit``."""
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM artifacts WHERE type='commit' AND id >= ? AND id < ? ORDER BY id "
            "LIMIT ?", (prefix, prefix + "g", limit))]

    def naming_commits(self, artifact_id: str) -> list[NamingCommit]:
        """Live commits linking to an artifact, newest first (a commit once per link)."""
        return [NamingCommit(r[0], r[1], r[2], r[3]) for r in self.conn.execute(
            "SELECT c.id, c.title, c.created_at, l.detail FROM links l JOIN artifacts c ON "
            "c.id=l.src WHERE l.dst=? AND l.invalid_at IS NULL AND c.type='commit' "
            "AND c.deleted=0 ORDER BY c.created_at DESC, c.id", (artifact_id,))]

    def ids_of_family(self, family: str) -> list[str]:
        """Every held id spelled ``FAMILY-…`` (SQLite's LIKE: ASCII case-insensitive)."""
        like = family.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "-%"
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM artifacts WHERE id LIKE ? ESCAPE '\\'", (like,))]

    def history_count(self, source: str, path: str) -> int:
        """How many history entries the read pass recorded for one file."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM history WHERE source=? AND path=?", (source, path)).fetchone()
        return int(row[0])

    def history_of(self, source: str, path: str) -> list[HistoryRow]:
        """One file's recorded history (in the store's order; the read sorts it)."""
        return [HistoryRow(r[0], r[1], r[2], r[3], r[4]) for r in self.conn.execute(
            "SELECT revision, at, change, author, summary FROM history WHERE source=? AND path=?",
            (source, path))]

    def deleted_among(self, ids: list[str]) -> set[str]:
        """Those of ids held and deleted."""
        return self._held_where(ids, "deleted=1")

    def held_among(self, ids: list[str]) -> set[str]:
        """Those of ids held at all (deleted or not)."""
        return self._held_where(ids, "1")

    def _held_where(self, ids: list[str], condition: str) -> set[str]:
        found: set[str] = set()
        for part in batches(sorted(set(ids))):
            found.update(r[0] for r in self.conn.execute(
                f"SELECT id FROM artifacts WHERE {condition} AND id IN ({marks(part)})",
                tuple(part)))
        return found

    def links_of(self, artifact_id: str, state: LinkState) -> list[LinkRow]:
        """Its links out, then its links in (self-links once), live, retired or both."""
        where = _STATE_SQL[state]
        return [LinkRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in self.conn.execute(
            f"SELECT src, dst, relation, method, detail, invalid_at, 'out' FROM links "
            f"WHERE src=? AND {where} UNION ALL SELECT src, dst, relation, method, detail, "
            f"invalid_at, 'in' FROM links WHERE dst=? AND src != dst AND {where}",
            (artifact_id, artifact_id))]

    def live_superseders(self, artifact_id: str) -> list[str]:
        """Live, undeleted notes with a supersedes link to the artifact, sorted."""
        return [r[0] for r in self.conn.execute(
            "SELECT l.src FROM links l JOIN artifacts a ON a.id = l.src WHERE l.dst=? "
            "AND l.relation='supersedes' AND l.invalid_at IS NULL AND a.deleted=0 ORDER BY l.src",
            (artifact_id,))]

    def revising_notes(self, artifact_id: str) -> list[tuple[str, str, str | None]]:
        """(note, link detail JSON, note's created_at) of live undeleted notes revising it."""
        return [(r[0], r[1], r[2]) for r in self.conn.execute(
            "SELECT l.src, l.detail, a.created_at FROM links l JOIN artifacts a ON a.id = l.src "
            "WHERE l.dst=? AND l.relation='revises' AND l.invalid_at IS NULL AND a.deleted=0",
            (artifact_id,))]

    def declared_targets(self, artifact_id: str) -> list[tuple[str, str]]:
        """(relation, dst) of an artifact's live declared links, sorted."""
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT relation, dst FROM links WHERE invalid_at IS NULL AND src=? "
            "AND method='declared' ORDER BY dst, relation", (artifact_id,))]

    def children_of(self, parents: list[str], projects: tuple[str, ...]) -> list[tuple[str, Artifact]]:
        """(parent, child) for the live declared children of parents within the projects; each
        child compact (its body read as '')."""
        cols = ", ".join(c if " AS " in c else f"a.{c}" for c in
                         (p.strip() for p in COMPACT_COLUMNS.split(",")))
        out: list[tuple[str, Artifact]] = []
        for part in batches(parents):
            out.extend((r["under"], row_to_artifact(r)) for r in self.conn.execute(
                f"SELECT l.dst AS under, {cols} FROM links l JOIN artifacts a ON a.id = l.src "
                f"WHERE l.dst IN ({marks(part)}) AND l.relation='parent' AND l.method='declared' "
                f"AND l.invalid_at IS NULL AND a.project IN ({marks(list(projects))})",
                (*part, *projects)))
        return out
