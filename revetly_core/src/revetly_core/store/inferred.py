"""The inferred half's read side, beside the keyword index: one SQLite file, never a source.

The read pass writes here what Graphiti extracted from each artifact's episode (its node's
summary, the entity types it carried, the facts touching it); reads answer from this file alone,
so a read on a full instance never opens the graph database nor imports graphiti-core. Deleting
the file (or the graph) loses nothing: `revetly sync --full` rebuilds both from CONTEXT.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from revetly_core.store.batches import batches, marks

INFERRED_FILE = "inferred.sqlite"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS episodes (artifact_id TEXT PRIMARY KEY, episode_uuid TEXT NOT NULL, "
    "digest TEXT NOT NULL, summary TEXT NOT NULL, entity_types TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS links (artifact_id TEXT NOT NULL, position INTEGER NOT NULL, "
    "name TEXT NOT NULL, target_id TEXT, relation TEXT NOT NULL, fact TEXT NOT NULL, "
    "PRIMARY KEY (artifact_id, position))",
    "CREATE TABLE IF NOT EXISTS concepts (artifact_id TEXT NOT NULL, name TEXT NOT NULL, "
    "summary TEXT NOT NULL, PRIMARY KEY (artifact_id, name))",
    "CREATE INDEX IF NOT EXISTS links_by_fact ON links (fact)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS concepts_fts USING fts5(name, summary, "
    "artifact_id UNINDEXED, tokenize = 'porter')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(fact, artifact_id UNINDEXED, "
    "name UNINDEXED, target_id UNINDEXED, relation UNINDEXED, tokenize = 'porter')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5(body, artifact_id UNINDEXED, "
    "tokenize = 'unicode61')",
)
_TABLES = ("episodes", "links", "concepts", "concepts_fts", "facts_fts", "episodes_fts")
"""Every table keyed by artifact id (a removed or re-extracted artifact leaves none behind)."""
MATCH_POOL = 200
"""Rows a fulltext match reads before the per-name fold (bounds one read's work)."""


@dataclass(frozen=True)
class InferredLink:
    """One fact Graphiti extracted joining an artifact's node to another node."""

    name: str
    """The far node's name (an artifact id where it names one)."""
    target_id: str | None
    """The held artifact the far node is named for, or None (a concept)."""
    relation: str
    fact: str


@dataclass(frozen=True)
class Extracted:
    """What one episode gave its artifact: the episode, its text's digest, and the projection."""

    artifact_id: str
    episode_uuid: str
    digest: str
    summary: str
    entity_types: list[str] = field(default_factory=list)
    links: list[InferredLink] = field(default_factory=list)
    concepts: list[tuple[str, str]] = field(default_factory=list)
    """(name, summary) of each extracted node that names no held artifact."""
    text: str = ""
    """The episode's own text, which the recipe's episode leg matches (BM25, no stemming)."""


@dataclass(frozen=True)
class Concept:
    """An extracted entity standing for no artifact, as search serves it."""

    name: str
    summary: str
    artifact_ids: list[str]
    """The artifacts whose episodes mentioned it."""


@dataclass(frozen=True)
class InferredFact:
    """A fact extraction inferred, matched by a query."""

    artifact_id: str
    name: str
    target_id: str | None
    relation: str
    fact: str


@dataclass(frozen=True)
class ArtifactInferred:
    """The inferred half of one artifact, as a read serves it."""

    summary: str
    entity_types: list[str]
    links: list[InferredLink]


class InferredStore:
    """The inferred projection of one instance (`index_folder / INFERRED_FILE`)."""

    def __init__(self, index_folder: Path) -> None:
        self.path = index_folder / INFERRED_FILE

    def present(self) -> bool:
        """Whether a pass has written the file."""
        return self.path.is_file()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, check_same_thread=False)
        for statement in _SCHEMA:
            conn.execute(statement)
        return conn

    def meta(self) -> dict[str, str]:
        """The file's meta table (empty when nothing is written)."""
        if not self.present():
            return {}
        with closing(self._connect()) as conn:
            return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}

    def set_meta(self, values: dict[str, str | None]) -> None:
        """Write meta values (None deletes the key)."""
        with closing(self._connect()) as conn, conn:
            for key, value in values.items():
                if value is None:
                    conn.execute("DELETE FROM meta WHERE key=?", (key,))
                else:
                    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                 (key, value))

    def episodes(self) -> dict[str, tuple[str, str]]:
        """artifact id -> (episode uuid, digest of the text it was extracted from)."""
        if not self.present():
            return {}
        with closing(self._connect()) as conn:
            return {str(a): (str(u), str(d)) for a, u, d in
                    conn.execute("SELECT artifact_id, episode_uuid, digest FROM episodes")}

    def episode_count(self) -> int:
        if not self.present():
            return 0
        with closing(self._connect()) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])

    def write(self, extracted: Iterable[Extracted], removed: Iterable[str]) -> None:
        """One transaction: replace the extracted artifacts' rows and drop the removed ones."""
        with closing(self._connect()) as conn, conn:
            for artifact_id in [*removed, *(item.artifact_id for item in extracted)]:
                for table in _TABLES:
                    conn.execute(f"DELETE FROM {table} WHERE artifact_id=?", (artifact_id,))
            for item in extracted:
                conn.execute(
                    "INSERT OR REPLACE INTO episodes (artifact_id, episode_uuid, digest, summary, "
                    "entity_types) VALUES (?, ?, ?, ?, ?)",
                    (item.artifact_id, item.episode_uuid, item.digest, item.summary,
                     json.dumps(item.entity_types)))
                conn.executemany(
                    "INSERT INTO links (artifact_id, position, name, target_id, relation, fact) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [(item.artifact_id, n, link.name, link.target_id, link.relation, link.fact)
                     for n, link in enumerate(item.links)])
                conn.executemany(
                    "INSERT INTO facts_fts (fact, artifact_id, name, target_id, relation) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(link.fact, item.artifact_id, link.name, link.target_id, link.relation)
                     for link in item.links])
                conn.executemany(
                    "INSERT OR REPLACE INTO concepts (artifact_id, name, summary) VALUES (?, ?, ?)",
                    [(item.artifact_id, name, summary) for name, summary in item.concepts])
                conn.executemany(
                    "INSERT INTO concepts_fts (name, summary, artifact_id) VALUES (?, ?, ?)",
                    [(name, summary, item.artifact_id) for name, summary in item.concepts])
                if item.text:
                    conn.execute("INSERT INTO episodes_fts (body, artifact_id) VALUES (?, ?)",
                                 (item.text, item.artifact_id))

    def clear(self) -> None:
        """Every row gone (a rebuild starts here)."""
        with closing(self._connect()) as conn, conn:
            for table in _TABLES:
                conn.execute(f"DELETE FROM {table}")

    def without_text(self) -> list[str]:
        """The extracted artifacts whose episode text the recipe's leg does not hold yet (a file
        written before it was kept), sorted."""
        if not self.present():
            return []
        with closing(self._connect()) as conn:
            return [str(a) for (a,) in conn.execute(
                "SELECT artifact_id FROM episodes WHERE artifact_id NOT IN "
                "(SELECT artifact_id FROM episodes_fts) ORDER BY artifact_id")]

    def write_texts(self, texts: Iterable[tuple[str, str]]) -> None:
        """(artifact id, episode text) pairs kept for the recipe's episode leg, for artifacts
        that hold none yet (`without_text`: an FTS5 delete by an unindexed id scans the table)."""
        with closing(self._connect()) as conn, conn:
            conn.executemany("INSERT INTO episodes_fts (body, artifact_id) VALUES (?, ?)",
                             [(text, artifact_id) for artifact_id, text in texts])

    def fact_sources(self, facts: list[str]) -> dict[str, set[str]]:
        """fact sentence -> the artifacts whose episodes extracted it (each fact's sources)."""
        out: dict[str, set[str]] = {}
        if not self.present() or not facts:
            return out
        with closing(self._connect()) as conn:
            for part in batches(sorted(set(facts))):
                for fact, artifact_id in conn.execute(
                        f"SELECT fact, artifact_id FROM links WHERE fact IN ({marks(part)})",
                        tuple(part)):
                    out.setdefault(str(fact), set()).add(str(artifact_id))
        return out

    def episodes_matching(self, words: list[str], pool: int) -> list[tuple[str, float]]:
        """(artifact id, BM25 score) of the episodes whose text carries any of the words, as
        written (no stemming), best first, ties by id: the recipe's episode leg."""
        query = fts_query(words)
        if not self.present() or not query:
            return []
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT artifact_id, bm25(episodes_fts) AS score FROM episodes_fts "
                "WHERE episodes_fts MATCH ? ORDER BY score, artifact_id LIMIT ?",
                (query, pool)).fetchall()
        return [(str(a), -float(score)) for a, score in rows]

    def of_artifact(self, artifact_id: str) -> ArtifactInferred | None:
        """The artifact's inferred half, or None where no episode of it was extracted."""
        if not self.present():
            return None
        with closing(self._connect()) as conn:
            row = conn.execute("SELECT summary, entity_types FROM episodes WHERE artifact_id=?",
                               (artifact_id,)).fetchone()
            if row is None:
                return None
            links = [InferredLink(str(n), None if t is None else str(t), str(r), str(f))
                     for n, t, r, f in conn.execute(
                         "SELECT name, target_id, relation, fact FROM links WHERE artifact_id=? "
                         "ORDER BY position", (artifact_id,))]
        types = json.loads(row[1])
        return ArtifactInferred(str(row[0]), [str(t) for t in types], links)

    def concepts_matching(self, words: list[str]) -> list[Concept]:
        """The concepts whose name or summary carry any of the words, best BM25 first, one row
        per name (its newest summary, every artifact that mentioned it)."""
        query = fts_query(words)
        if not self.present() or not query:
            return []
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT name, summary, artifact_id FROM concepts_fts WHERE concepts_fts MATCH ? "
                "ORDER BY bm25(concepts_fts, 3.0, 1.0), name LIMIT ?",
                (query, MATCH_POOL)).fetchall()
        folded: dict[str, Concept] = {}
        for name, summary, artifact_id in rows:
            held = folded.get(str(name))
            if held is None:
                folded[str(name)] = Concept(str(name), str(summary), [str(artifact_id)])
            elif str(artifact_id) not in held.artifact_ids:
                held.artifact_ids.append(str(artifact_id))
        return list(folded.values())

    def facts_matching(self, words: list[str]) -> list[InferredFact]:
        """The inferred facts whose sentence carries any of the words, best BM25 first."""
        query = fts_query(words)
        if not self.present() or not query:
            return []
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT artifact_id, name, target_id, relation, fact FROM facts_fts "
                "WHERE facts_fts MATCH ? ORDER BY bm25(facts_fts), artifact_id LIMIT ?",
                (query, MATCH_POOL)).fetchall()
        return [InferredFact(str(a), str(n), None if t is None else str(t), str(r), str(f))
                for a, n, t, r, f in rows]


def fts_query(words: list[str]) -> str:
    """An FTS5 query asking for any of the words, each quoted (no operator can be injected)."""
    quoted = ['"' + w.replace('"', '""') + '"' for w in words if w.strip()]
    return " OR ".join(quoted)
