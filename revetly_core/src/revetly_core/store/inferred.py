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

INFERRED_FILE = "inferred.sqlite"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS episodes (artifact_id TEXT PRIMARY KEY, episode_uuid TEXT NOT NULL, "
    "digest TEXT NOT NULL, summary TEXT NOT NULL, entity_types TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS links (artifact_id TEXT NOT NULL, position INTEGER NOT NULL, "
    "name TEXT NOT NULL, target_id TEXT, relation TEXT NOT NULL, fact TEXT NOT NULL, "
    "PRIMARY KEY (artifact_id, position))",
)


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
            for artifact_id in removed:
                conn.execute("DELETE FROM episodes WHERE artifact_id=?", (artifact_id,))
                conn.execute("DELETE FROM links WHERE artifact_id=?", (artifact_id,))
            for item in extracted:
                conn.execute("DELETE FROM links WHERE artifact_id=?", (item.artifact_id,))
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

    def clear(self) -> None:
        """Every row gone (a rebuild starts here)."""
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM episodes")
            conn.execute("DELETE FROM links")

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
