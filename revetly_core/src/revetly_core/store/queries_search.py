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


class HitRow(NamedTuple):
    """What search weighs a hit on before it serves it: the few columns of one artifact the
    gathering, the signals and the reorder rules read (no body, no JSON columns)."""

    id: str
    project: str
    type: str
    created_at: str | None
    source_updated_at: str | None
    provenance: str
    deleted: bool
    withheld: bool
    family: str | None = None
    """The id's family as the store keyed it (`key_text`), None for an id that is no key."""


def family_of_key(key_text: str | None) -> str | None:
    """The family of a stored id key (``STORY:12`` -> ``STORY``), None when there is none."""
    return key_text.partition(":")[0] if key_text else None


class LinkTally(NamedTuple):
    """How many live declared links of one relation point at one artifact from another."""

    dst: str
    relation: str
    links: int


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

    def hit_rows(self, ids: list[str]) -> dict[str, HitRow]:
        """id -> its HitRow, for those of ids the store holds (one query per batch)."""
        out: dict[str, HitRow] = {}
        for part in batches(ids):
            for r in self.conn.execute(
                f"SELECT id, project, type, created_at, source_updated_at, provenance, deleted, "
                f"withheld, id_key FROM artifacts WHERE id IN ({marks(part)})", tuple(part),
            ):
                out[r[0]] = HitRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), bool(r[7]),
                                   family_of_key(r[8]))
        return out

    def bodies_of(self, ids: list[str]) -> dict[str, str]:
        """id -> its body, for those of ids the store holds."""
        out: dict[str, str] = {}
        for part in batches(ids):
            out.update((r[0], r[1]) for r in self.conn.execute(
                f"SELECT id, body FROM artifacts WHERE id IN ({marks(part)})", tuple(part)))
        return out

    def superseders_of(self, ids: list[str]) -> dict[str, list[str]]:
        """id -> the live, undeleted notes with a supersedes link to it, sorted: each id's
        `live_superseders`, read for all of ids at once (ids none supersedes are left out)."""
        out: dict[str, list[str]] = {}
        for part in batches(ids):
            for dst, src in self.conn.execute(
                f"SELECT l.dst, l.src FROM links l JOIN artifacts a ON a.id = l.src "
                f"WHERE l.dst IN ({marks(part)}) AND l.relation='supersedes' "
                f"AND l.invalid_at IS NULL AND a.deleted=0 ORDER BY l.dst, l.src", tuple(part),
            ):
                out.setdefault(dst, []).append(src)
        return out

    def revising_notes_of(self, ids: list[str]) -> dict[str, list[tuple[str, str, str | None]]]:
        """id -> (note, link detail JSON, note's created_at) of the live undeleted notes revising
        it: each id's `revising_notes`, read for all of ids at once (in link order)."""
        out: dict[str, list[tuple[str, str, str | None]]] = {}
        for part in batches(ids):
            for dst, src, detail, created in self.conn.execute(
                f"SELECT l.dst, l.src, l.detail, a.created_at FROM links l JOIN artifacts a "
                f"ON a.id = l.src WHERE l.dst IN ({marks(part)}) AND l.relation='revises' "
                f"AND l.invalid_at IS NULL AND a.deleted=0 ORDER BY l.dst, l.rowid", tuple(part),
            ):
                out.setdefault(dst, []).append((src, detail, created))
        return out

    def neighbour_links_of(self, ids: list[str]) -> dict[str, list[NeighbourLink]]:
        """id -> the live cites / references / mentions links into or out of it, for each of ids."""
        wanted = set(ids)
        out: dict[str, list[NeighbourLink]] = {i: [] for i in ids}
        for part in batches(ids):
            for src, dst, relation, src_deleted, dst_deleted in self.conn.execute(
                f"SELECT l.src, l.dst, l.relation, COALESCE(sa.deleted, 0), COALESCE(da.deleted, 0) "
                f"FROM links l LEFT JOIN artifacts sa ON sa.id = l.src "
                f"LEFT JOIN artifacts da ON da.id = l.dst "
                f"WHERE (l.src IN ({marks(part)}) OR l.dst IN ({marks(part)})) "
                f"AND l.invalid_at IS NULL AND l.relation IN ('cites','references','mentions')",
                (*part, *part),
            ):
                for end in {src, dst} & wanted:
                    far_deleted = dst_deleted if src == end else src_deleted
                    out[end].append(NeighbourLink(src, dst, relation, bool(far_deleted)))
        return out

    def declared_link_tally(self, ids: list[str],
                            methods: tuple[str, ...] = ("declared",)) -> list[LinkTally]:
        """Per (dst, relation): the live links of the methods from another artifact into one of
        ids (declared ones unless told)."""
        out: list[LinkTally] = []
        for part in batches(ids):
            out.extend(LinkTally(r[0], r[1], int(r[2])) for r in self.conn.execute(
                f"SELECT dst, relation, COUNT(*) FROM links WHERE invalid_at IS NULL "
                f"AND method IN ({marks(list(methods))}) AND src != dst "
                f"AND dst IN ({marks(part)}) GROUP BY dst, relation", (*methods, *part)))
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
