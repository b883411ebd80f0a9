"""The store's queries behind search_context: links around hits, facts, revises and supersedes."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from revetly_core.store.batches import batches, marks

_FACT_RELATIONS_SQL = "('parent','delivers','supersedes','revises')"


class NeighbourLink(NamedTuple):
    """A live cites / references / mentions link touching an artifact, and whether its far end
    is deleted."""

    src: str
    dst: str
    relation: str
    far_deleted: bool


class LinkEnds(NamedTuple):
    """A link's two ends and its relation."""

    src: str
    dst: str
    relation: str


class RetiredLink(NamedTuple):
    """A declared link a later pass retired, and when."""

    src: str
    dst: str
    relation: str
    invalid_at: str


class FactLink(NamedTuple):
    """A live declared relation between two artifacts, with the titles of both ends (if held)."""

    src: str
    dst: str
    relation: str
    src_title: str | None
    dst_title: str | None


class Statement(NamedTuple):
    """A statement the read pass extracted from an artifact."""

    id: str
    artifact_id: str
    text: str
    stated_at: str | None


class Reviser(NamedTuple):
    """A live note revising an item, with the note's creation time ('' when unknown)."""

    note: str
    item: str
    created_at: str


class SearchQueries:
    """Mixin of the SQLite store: the reads search_context makes of links and statements."""

    conn: sqlite3.Connection

    def neighbour_links(self, artifact_id: str) -> list[NeighbourLink]:
        """Live cites / references / mentions links into or out of one artifact."""
        rows = self.conn.execute(
            "SELECT l.src, l.dst, l.relation, COALESCE(a.deleted, 0) FROM links l "
            "LEFT JOIN artifacts a ON a.id = CASE WHEN l.src=? THEN l.dst ELSE l.src END "
            "WHERE (l.src=? OR l.dst=?) AND l.invalid_at IS NULL AND l.relation IN "
            "('cites','references','mentions')", (artifact_id, artifact_id, artifact_id),
        )
        return [NeighbourLink(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def declared_links_into(self, ids: list[str]) -> list[LinkEnds]:
        """Live declared links whose far end is one of ids."""
        out: list[LinkEnds] = []
        for part in batches(ids):
            out.extend(LinkEnds(r[0], r[1], r[2]) for r in self.conn.execute(
                f"SELECT src, dst, relation FROM links WHERE invalid_at IS NULL "
                f"AND method='declared' AND dst IN ({marks(part)})", tuple(part)))
        return out

    def stated_names_from(self, ids: list[str]) -> list[tuple[str, str]]:
        """(src, dst) of the live explicit-ref or supersedes links out of ids."""
        out: list[tuple[str, str]] = []
        for part in batches(ids):
            out.extend((r[0], r[1]) for r in self.conn.execute(
                f"SELECT src, dst FROM links WHERE invalid_at IS NULL AND src IN ({marks(part)}) "
                f"AND (method='explicit-ref' OR relation='supersedes')", tuple(part)))
        return out

    def retired_declared_links(self, ids: list[str]) -> list[RetiredLink]:
        """Retired declared parent/delivers/supersedes/revises links touching ids, sorted by
        (src, dst, relation)."""
        found: dict[tuple[str, str, str], RetiredLink] = {}
        for part in batches(ids):
            for r in self.conn.execute(
                f"SELECT src, dst, relation, invalid_at FROM links WHERE invalid_at IS NOT NULL "
                f"AND method='declared' AND relation IN {_FACT_RELATIONS_SQL} "
                f"AND (src IN ({marks(part)}) OR dst IN ({marks(part)}))", (*part, *part),
            ):
                found.setdefault((r[0], r[1], r[2]), RetiredLink(r[0], r[1], r[2], r[3]))
        return [found[k] for k in sorted(found)]

    def declared_facts(self, ids: list[str]) -> list[FactLink]:
        """Live declared parent/delivers/supersedes/revises links touching ids, with titles."""
        found: dict[tuple[str, str, str], FactLink] = {}
        for part in batches(ids):
            for r in self.conn.execute(
                f"SELECT l.src, l.dst, l.relation, sa.title, da.title FROM links l "
                f"LEFT JOIN artifacts sa ON sa.id=l.src LEFT JOIN artifacts da ON da.id=l.dst "
                f"WHERE l.invalid_at IS NULL AND l.method='declared' AND l.relation IN "
                f"{_FACT_RELATIONS_SQL} AND (l.src IN ({marks(part)}) OR l.dst IN ({marks(part)}))",
                (*part, *part),
            ):
                found.setdefault((r[0], r[1], r[2]), FactLink(r[0], r[1], r[2], r[3], r[4]))
        return list(found.values())

    def statements_of(self, ids: list[str]) -> list[Statement]:
        """The statements extracted from ids."""
        out: list[Statement] = []
        for part in batches(ids):
            out.extend(Statement(r[0], r[1], r[2], r[3]) for r in self.conn.execute(
                f"SELECT id, artifact_id, text, stated_at FROM statements "
                f"WHERE artifact_id IN ({marks(part)})", tuple(part)))
        return out

    def superseded_among(self, ids: list[str]) -> set[str]:
        """Those of ids a live supersedes link points at."""
        out: set[str] = set()
        for part in batches(ids):
            out.update(r[0] for r in self.conn.execute(
                f"SELECT DISTINCT dst FROM links WHERE relation='supersedes' AND invalid_at IS NULL "
                f"AND dst IN ({marks(part)})", tuple(part)))
        return out

    def revises_within(self, ids: list[str]) -> list[tuple[str, str]]:
        """(note, item) of the live revises links with both ends among ids."""
        wanted = set(ids)
        out: list[tuple[str, str]] = []
        for part in batches(ids):
            out.extend((r[0], r[1]) for r in self.conn.execute(
                f"SELECT src, dst FROM links WHERE relation='revises' AND invalid_at IS NULL "
                f"AND src IN ({marks(part)})", tuple(part)) if r[1] in wanted)
        return out

    def live_revisers(self, ids: list[str]) -> list[Reviser]:
        """Live, undeleted notes revising any of ids."""
        out: list[Reviser] = []
        for part in batches(ids):
            out.extend(Reviser(r[0], r[1], r[2]) for r in self.conn.execute(
                f"SELECT l.src, l.dst, COALESCE(a.created_at, '') FROM links l JOIN artifacts a "
                f"ON a.id = l.src WHERE l.relation='revises' AND l.invalid_at IS NULL "
                f"AND a.deleted=0 AND l.dst IN ({marks(part)})", tuple(part)))
        return out
