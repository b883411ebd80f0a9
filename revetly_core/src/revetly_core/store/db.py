"""The SQLite half of CONTEXT: artifacts, links, statements, history, problems and the ledger."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from revetly_core.connectors.base import FileProblem, KnownArtifact
from revetly_core.refusal import Refusal
from revetly_core.store.queries_artifact import ArtifactQueries
from revetly_core.store.queries_backlog import BacklogQueries
from revetly_core.store.queries_operate import OperateQueries
from revetly_core.store.queries_pass import PassQueries
from revetly_core.store.queries_scope import ScopeQueries
from revetly_core.store.queries_search import SearchQueries
from revetly_core.store.rows import (
    ARTIFACT_COLUMNS,
    artifact_row,
    detail_json,
    key_text,
    row_to_artifact,
)

if TYPE_CHECKING:
    from revetly_core.model import Artifact, HistoryEntry, Link

SCHEMA_VERSION = 3
"""Bumped whenever the tables change; each bump adds one step to MIGRATIONS."""

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS artifacts (
  id TEXT PRIMARY KEY, project TEXT NOT NULL, type TEXT NOT NULL, kind TEXT NOT NULL,
  title TEXT NOT NULL, status TEXT, parent TEXT, owner TEXT, body TEXT NOT NULL DEFAULT '',
  criteria TEXT NOT NULL DEFAULT '[]', criteria_unparsed INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}', aliases TEXT NOT NULL DEFAULT '[]',
  source TEXT NOT NULL, source_path TEXT, source_uri TEXT, blob TEXT,
  created_at TEXT, source_updated_at TEXT, ingested_at TEXT,
  deleted INTEGER NOT NULL DEFAULT 0, deleted_at TEXT, deleted_clock TEXT, deleted_note TEXT,
  provenance TEXT NOT NULL DEFAULT 'source-of-record', withheld INTEGER NOT NULL DEFAULT 0,
  id_key TEXT
);
CREATE INDEX IF NOT EXISTS artifacts_id_key ON artifacts(id_key, id);
CREATE TABLE IF NOT EXISTS phrases (
  phrase TEXT NOT NULL, artifact_id TEXT NOT NULL, length INTEGER NOT NULL,
  PRIMARY KEY (phrase, artifact_id)
);
CREATE INDEX IF NOT EXISTS phrases_artifact ON phrases(artifact_id);
CREATE INDEX IF NOT EXISTS artifacts_source ON artifacts(source);
CREATE INDEX IF NOT EXISTS artifacts_type ON artifacts(type, status);
CREATE TABLE IF NOT EXISTS links (
  src TEXT NOT NULL, dst TEXT NOT NULL, relation TEXT NOT NULL, method TEXT NOT NULL,
  dst_key TEXT, detail TEXT NOT NULL DEFAULT '{}', stated INTEGER NOT NULL DEFAULT 1,
  valid_at TEXT, invalid_at TEXT,
  PRIMARY KEY (src, dst, relation, method)
);
CREATE INDEX IF NOT EXISTS links_dst ON links(dst);
CREATE INDEX IF NOT EXISTS links_dst_key ON links(dst_key);
CREATE TABLE IF NOT EXISTS statements (
  id TEXT PRIMARY KEY, artifact_id TEXT NOT NULL, text TEXT NOT NULL, stated_at TEXT
);
CREATE INDEX IF NOT EXISTS statements_artifact ON statements(artifact_id);
CREATE TABLE IF NOT EXISTS history (
  source TEXT NOT NULL, path TEXT NOT NULL, revision TEXT NOT NULL, at TEXT NOT NULL,
  change TEXT NOT NULL, author TEXT, summary TEXT,
  PRIMARY KEY (source, path, revision)
);
CREATE TABLE IF NOT EXISTS problems (
  source TEXT NOT NULL, path TEXT NOT NULL, code TEXT NOT NULL, detail TEXT NOT NULL,
  severity TEXT,
  PRIMARY KEY (source, path)
);
CREATE TABLE IF NOT EXISTS sources (
  source TEXT PRIMARY KEY, project TEXT, cursor TEXT NOT NULL DEFAULT '{}',
  last_read_at TEXT, last_outcome TEXT, floor TEXT, gaps TEXT NOT NULL DEFAULT '[]',
  partial INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS passes (
  pass_id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, ended_at TEXT,
  outcome TEXT NOT NULL, full INTEGER NOT NULL, revision INTEGER, error TEXT,
  counts TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS ledger (
  pass_id INTEGER NOT NULL, source TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT,
  outcome TEXT NOT NULL, counts TEXT NOT NULL DEFAULT '{}', floor TEXT,
  gaps TEXT NOT NULL DEFAULT '[]', partial INTEGER NOT NULL DEFAULT 0, note TEXT,
  PRIMARY KEY (pass_id, source)
);
"""

PASS_INDEXES = """
CREATE INDEX IF NOT EXISTS artifacts_source_known
  ON artifacts(source, source_path, id, blob, deleted, deleted_at, deleted_clock);
"""
"""The index the read pass reads a source's rows by: what it knows of each (`known`, from the
index alone, never the bodies) and the ids at given paths (`ids_at_paths`). Made on a writable
open when absent (an index changes no table, so no schema version: a store made before it
gains it on its next pass)."""


def _v1_to_v2(conn: sqlite3.Connection) -> None:
    """Id keys and mention phrases became columns; the next pass is made full to fill them."""
    conn.execute("ALTER TABLE artifacts ADD COLUMN id_key TEXT")
    conn.execute("CREATE INDEX IF NOT EXISTS artifacts_id_key ON artifacts(id_key, id)")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS phrases (phrase TEXT NOT NULL, artifact_id TEXT NOT NULL, "
        "length INTEGER NOT NULL, PRIMARY KEY (phrase, artifact_id))"
    )
    conn.execute("CREATE INDEX IF NOT EXISTS phrases_artifact ON phrases(artifact_id)")
    conn.execute("DELETE FROM meta WHERE key='config_fingerprint'")


def _v2_to_v3(conn: sqlite3.Connection) -> None:
    """Problems keep the severity their source stated; the next pass is made full to fill it."""
    conn.execute("ALTER TABLE problems ADD COLUMN severity TEXT")
    conn.execute("DELETE FROM meta WHERE key='config_fingerprint'")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3}
"""from-version -> a step that brings the schema to from-version + 1."""

def _py_lower(value: str | None) -> str | None:
    """Python's Unicode lower-casing, for SQL that must fold case as the linker does."""
    return None if value is None else value.lower()


class SQLiteStore(SearchQueries, ArtifactQueries, BacklogQueries, OperateQueries, PassQueries,
                  ScopeQueries):
    """One instance's context.db (the `Store` protocol over SQLite). Many readers, one writer
    (the read pass holds the lock)."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        if readonly and not path.exists():
            raise Refusal(
                "not-synced", "this instance has not been read yet (no CONTEXT store)",
                "run `revetly sync`",
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        self.conn.create_function("py_lower", 1, _py_lower, deterministic=True)
        if not readonly:
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=OFF")
        if not readonly:
            self._ensure_schema()
        else:
            self._check_version()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema -----------------------------------------------------------------------------

    def _ensure_schema(self) -> None:
        version = self.schema_version()
        if version is None:
            self.conn.executescript(_TABLES + PASS_INDEXES)
            self.set_meta("schema_version", str(SCHEMA_VERSION))
            return
        while version < SCHEMA_VERSION:
            step = MIGRATIONS.get(version)
            if step is None:
                raise Refusal(
                    "refused", f"context.db is at schema {version} with no migration to "
                    f"{SCHEMA_VERSION}", "run `revetly sync --full` after deleting .revetly/",
                )
            with self.transaction():
                step(self.conn)
                version += 1
                self.set_meta("schema_version", str(version))
        if version > SCHEMA_VERSION:
            raise Refusal(
                "refused", f"context.db is at schema {version}, newer than this engine "
                f"({SCHEMA_VERSION})", "upgrade revetly",
            )
        self.conn.executescript(PASS_INDEXES)

    def _check_version(self) -> None:
        version = self.schema_version()
        if version is not None and version > SCHEMA_VERSION:
            raise Refusal(
                "refused", f"context.db is at schema {version}, written by a newer engine than "
                f"this one ({SCHEMA_VERSION})", "upgrade revetly",
            )
        if version != SCHEMA_VERSION:
            raise Refusal(
                "not-synced", f"context.db is at schema {version}, this engine reads "
                f"{SCHEMA_VERSION}", "run `revetly sync` to migrate it",
            )

    def schema_version(self) -> int | None:
        try:
            value = self.get_meta("schema_version")
        except sqlite3.OperationalError:
            return None
        return int(value) if value is not None else None

    # -- meta -------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    @property
    def revision(self) -> int:
        return int(self.get_meta("corpus_revision") or 0)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic write: everything inside lands together or not at all."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """A part of the open transaction that is undone alone when it raises."""
        self.conn.execute("SAVEPOINT part")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK TO part")
            self.conn.execute("RELEASE part")
            raise
        self.conn.execute("RELEASE part")

    # -- artifacts --------------------------------------------------------------------------

    def known(self, source: str) -> dict[str, KnownArtifact]:
        """What the store holds of one source, for change detection."""
        cur = self.conn.cursor()
        cur.row_factory = None  # plain tuples: one row per held artifact
        rows = cur.execute(
            "SELECT id, source_path, blob, deleted, deleted_at, deleted_clock FROM artifacts "
            "WHERE source=?", (source,),
        )
        return {
            r[0]: KnownArtifact(r[0], r[1], r[2], bool(r[3]), r[4], r[5]) for r in rows
        }

    def upsert_artifacts(self, artifacts: Iterable[Artifact], ingested_at: str) -> None:
        self.upsert_rows(artifact_row(a, ingested_at) for a in artifacts)

    def upsert_rows(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Insert or replace artifacts already laid out as rows (``artifact_row``)."""
        cols = ", ".join(ARTIFACT_COLUMNS)
        marks = ", ".join("?" for _ in ARTIFACT_COLUMNS)
        self.conn.executemany(f"INSERT OR REPLACE INTO artifacts ({cols}) VALUES ({marks})", rows)

    def replace_phrases(self, rows: dict[str, list[str]]) -> None:
        """The mention phrases (a title or alias, as space-joined tokens) of these artifacts."""
        self.conn.executemany("DELETE FROM phrases WHERE artifact_id=?", ((i,) for i in rows))
        self.conn.executemany(
            "INSERT OR IGNORE INTO phrases (phrase, artifact_id, length) VALUES (?,?,?)",
            ((p, i, len(p.split(" "))) for i, ps in rows.items() for p in ps),
        )

    def phrases_of(self, ids: list[str]) -> dict[str, set[str]]:
        """artifact id -> the mention phrases the store holds for it."""
        out: dict[str, set[str]] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for aid, phrase in self.conn.execute(
                f"SELECT artifact_id, phrase FROM phrases WHERE artifact_id IN ({marks})", tuple(part)
            ):
                out.setdefault(aid, set()).add(phrase)
        return out

    def phrase_lengths(self) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT length FROM phrases ORDER BY 1")]

    def artifacts_with_phrases(self, phrases: list[str]) -> set[str]:
        """Ids of artifacts whose title or alias is one of these phrases."""
        found: set[str] = set()
        for start in range(0, len(phrases), 500):
            part = phrases[start : start + 500]
            marks = ",".join("?" * len(part))
            found.update(r[0] for r in self.conn.execute(
                f"SELECT artifact_id FROM phrases WHERE phrase IN ({marks})", tuple(part)))
        return found

    def ids_at_paths(self, source: str, paths: list[str]) -> list[str]:
        """Ids of the source's artifacts read from these paths."""
        out: list[str] = []
        for start in range(0, len(paths), 500):
            part = paths[start : start + 500]
            marks = ",".join("?" * len(part))
            out.extend(r[0] for r in self.conn.execute(
                f"SELECT id FROM artifacts WHERE source=? AND source_path IN ({marks})",
                (source, *part)))
        return out

    def times_of(self, ids: list[str]) -> dict[str, tuple[str | None, str | None]]:
        """id -> (created_at, source_updated_at) as the store holds them now."""
        out: dict[str, tuple[str | None, str | None]] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for i, created, updated in self.conn.execute(
                f"SELECT id, created_at, source_updated_at FROM artifacts WHERE id IN ({marks})",
                tuple(part),
            ):
                out[i] = (created, updated)
        return out

    def ids_for_keys(self, keys: list[str]) -> dict[str, str]:
        """id key text -> the lowest held id spelled with that key."""
        out: dict[str, str] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            for key, held in self.conn.execute(
                f"SELECT id_key, MIN(id) FROM artifacts WHERE id_key IN ({marks}) GROUP BY id_key",
                tuple(part),
            ):
                out[key] = held
        return out

    def mark_deleted(self, artifact_id: str, at: str | None, clock: str, note: str | None) -> None:
        self.conn.execute(
            "UPDATE artifacts SET deleted=1, deleted_at=?, deleted_clock=?, deleted_note=? "
            "WHERE id=?", (at, clock, note, artifact_id),
        )

    def get(self, artifact_id: str) -> Artifact | None:
        row = self.conn.execute("SELECT * FROM artifacts WHERE id=?", (artifact_id,)).fetchone()
        return None if row is None else row_to_artifact(row)

    def artifacts(self, where: str = "1", params: tuple[Any, ...] = ()) -> Iterator[Artifact]:
        for row in self.conn.execute(f"SELECT * FROM artifacts WHERE {where} ORDER BY id", params):
            yield row_to_artifact(row)

    def all_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM artifacts ORDER BY id")]

    def fill_times_from_history(self, source: str, ids: Iterable[str]) -> None:
        """Source times from git where the frontmatter declares none: first and last change."""
        self.conn.executemany(
            """UPDATE artifacts SET
                 created_at = COALESCE(json_extract(metadata, '$.declared_created'),
                   (SELECT MIN(at) FROM history h WHERE h.source=artifacts.source
                      AND h.path=artifacts.source_path), created_at),
                 source_updated_at = COALESCE(json_extract(metadata, '$.declared_updated'),
                   (SELECT MAX(at) FROM history h WHERE h.source=artifacts.source
                      AND h.path=artifacts.source_path AND h.change != 'deleted'),
                   source_updated_at)
               WHERE id=? AND source=?""",
            ((i, source) for i in ids),
        )

    # -- links and statements --------------------------------------------------------------

    def retire_links_from(self, srcs: Iterable[str], at: str) -> None:
        """Retire every live outgoing link of these artifacts (they are about to be re-stated)."""
        self.conn.executemany(
            "UPDATE links SET invalid_at=? WHERE src=? AND invalid_at IS NULL",
            ((at, s) for s in srcs),
        )

    def retire_links(self, links: Iterable[tuple[str, str, str, str]], at: str) -> None:
        self.conn.executemany(
            "UPDATE links SET invalid_at=? WHERE src=? AND dst=? AND relation=? AND method=? "
            "AND invalid_at IS NULL", ((at, *k) for k in links),
        )

    def state_links(self, links: Iterable[Link], at: str) -> None:
        """Insert or revive links; a link already live keeps the time it was first stated."""
        self.conn.executemany(
            """INSERT INTO links (src, dst, relation, method, dst_key, detail, stated, valid_at)
               VALUES (?, ?, ?, ?, ?, ?, 1, ?)
               ON CONFLICT (src, dst, relation, method) DO UPDATE SET
                 detail=excluded.detail, dst_key=excluded.dst_key,
                 valid_at=CASE WHEN links.invalid_at IS NULL THEN links.valid_at
                               ELSE excluded.valid_at END,
                 invalid_at=NULL""",
            (
                (link.src, link.dst, link.relation, link.method, key_text(link.dst),
                 detail_json(link.detail), at)
                for link in links
            ),
        )

    def live_links(self, where: str = "1", params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return list(self.conn.execute(
            f"SELECT * FROM links WHERE invalid_at IS NULL AND ({where}) "
            "ORDER BY src, dst, relation, method", params,
        ))

    def replace_statements(
        self, artifact_ids: Iterable[str], rows: Iterable[tuple[str, str, str, str | None]]
    ) -> None:
        self.conn.executemany(
            "DELETE FROM statements WHERE artifact_id=?", ((i,) for i in artifact_ids)
        )
        self.conn.executemany(
            "INSERT OR REPLACE INTO statements (id, artifact_id, text, stated_at) VALUES (?,?,?,?)",
            rows,
        )

    # -- history, problems, sources, passes -------------------------------------------------

    def add_history(self, source: str, entries: Iterable[HistoryEntry]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO history (source, path, revision, at, change, author, summary) "
            "VALUES (?,?,?,?,?,?,?)",
            ((source, e.artifact_id, e.revision, e.at, e.change, e.author, e.summary)
             for e in entries),
        )

    def clear_history(self, source: str) -> None:
        self.conn.execute("DELETE FROM history WHERE source=?", (source,))

    def replace_problems(
        self, source: str, cleared: Iterable[str], problems: Iterable[FileProblem], *, full: bool
    ) -> None:
        if full:
            self.conn.execute("DELETE FROM problems WHERE source=?", (source,))
        else:
            self.conn.executemany(
                "DELETE FROM problems WHERE source=? AND path=?", ((source, p) for p in cleared)
            )
        self.conn.executemany(
            "INSERT OR REPLACE INTO problems (source, path, code, detail, severity) "
            "VALUES (?,?,?,?,?)",
            ((p.source, p.path, p.code, p.detail, p.severity) for p in problems),
        )

    def problems(self) -> list[sqlite3.Row]:
        return list(self.conn.execute("SELECT * FROM problems ORDER BY source, path"))

    def source_state(self, source: str) -> dict[str, Any]:
        row = self.conn.execute("SELECT cursor FROM sources WHERE source=?", (source,)).fetchone()
        return {} if row is None else dict(json.loads(row[0]))

    def record_source(
        self, source: str, project: str, *, cursor: dict[str, Any] | None, at: str, outcome: str,
        floor: str | None, gaps: list[str], partial: bool,
    ) -> None:
        prior = self.conn.execute(
            "SELECT cursor, last_read_at FROM sources WHERE source=?", (source,)
        ).fetchone()
        keep = prior[0] if prior is not None else "{}"
        # a failed read leaves the time of the last read that landed: freshness must not lie
        read_at = at if outcome == "succeeded" else (prior[1] if prior is not None else None)
        self.conn.execute(
            "INSERT OR REPLACE INTO sources (source, project, cursor, last_read_at, last_outcome, "
            "floor, gaps, partial) VALUES (?,?,?,?,?,?,?,?)",
            (source, project, json.dumps(cursor, sort_keys=True) if cursor is not None else keep,
             read_at, outcome, floor, json.dumps(gaps), int(partial)),
        )

    def sources(self) -> list[sqlite3.Row]:
        return list(self.conn.execute("SELECT * FROM sources ORDER BY source"))

    def start_pass(self, at: str, full: bool) -> int:
        cur = self.conn.execute(
            "INSERT INTO passes (started_at, outcome, full) VALUES (?, 'running', ?)", (at, int(full))
        )
        return int(cur.lastrowid or 0)

    def end_pass(self, pass_id: int, at: str, outcome: str, revision: int | None,
                 counts: dict[str, Any], error: str | None = None) -> None:
        self.conn.execute(
            "UPDATE passes SET ended_at=?, outcome=?, revision=?, counts=?, error=? WHERE pass_id=?",
            (at, outcome, revision, json.dumps(counts, sort_keys=True), error, pass_id),
        )

    def ledger_entry(self, pass_id: int, source: str, *, started: str, ended: str, outcome: str,
                     counts: dict[str, Any], floor: str | None, gaps: list[str], partial: bool,
                     note: str | None) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO ledger (pass_id, source, started_at, ended_at, outcome, counts, "
            "floor, gaps, partial, note) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (pass_id, source, started, ended, outcome, json.dumps(counts, sort_keys=True), floor,
             json.dumps(gaps), int(partial), note),
        )

    def last_pass(self) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(
            "SELECT * FROM passes WHERE outcome != 'running' ORDER BY pass_id DESC LIMIT 1"
        ).fetchone()
        return row

    def ledger_for(self, pass_id: int) -> list[sqlite3.Row]:
        return list(self.conn.execute(
            "SELECT * FROM ledger WHERE pass_id=? ORDER BY source", (pass_id,)
        ))

    def last_ledger(self, source: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(
            "SELECT * FROM ledger WHERE source=? ORDER BY pass_id DESC LIMIT 1", (source,)
        ).fetchone()
        return row

    def counts(self) -> dict[str, Any]:
        """Live artifacts by kind, type and status; deleted and withheld counted apart."""
        by_kind: dict[str, int] = {}
        by_type: dict[str, int] = {}
        by_status: dict[str, dict[str, int]] = {}
        for kind, typ, status, n in self.conn.execute(
            "SELECT kind, type, COALESCE(status, ''), COUNT(*) FROM artifacts WHERE deleted=0 "
            "GROUP BY kind, type, status ORDER BY kind, type, status"
        ):
            by_kind[kind] = by_kind.get(kind, 0) + n
            by_type[typ] = by_type.get(typ, 0) + n
            if status:
                by_status.setdefault(typ, {})[status] = n
        deleted = self.conn.execute("SELECT COUNT(*) FROM artifacts WHERE deleted=1").fetchone()[0]
        withheld = self.conn.execute(
            "SELECT COUNT(*) FROM artifacts WHERE withheld=1 AND deleted=0").fetchone()[0]
        links = self.conn.execute("SELECT COUNT(*) FROM links WHERE invalid_at IS NULL").fetchone()[0]
        return {
            "artifacts": sum(by_kind.values()), "by_kind": by_kind, "by_type": by_type,
            "by_status": by_status, "deleted": deleted, "withheld": withheld, "links": links,
        }

    def snapshot(self) -> dict[str, Any]:
        """The corpus as data, without ingest-clock fields: equal for equal sources."""
        arts = [
            {k: r[k] for k in r.keys() if k not in ("ingested_at",)}  # noqa: SIM118 (sqlite3.Row)
            for r in self.conn.execute("SELECT * FROM artifacts ORDER BY id")
        ]
        links = [
            {k: r[k] for k in r.keys() if k not in ("valid_at", "invalid_at")}  # noqa: SIM118
            for r in self.live_links()
        ]
        stmts = [dict(r) for r in self.conn.execute("SELECT * FROM statements ORDER BY id")]
        hist = [dict(r) for r in self.conn.execute(
            "SELECT * FROM history ORDER BY source, path, revision")]
        return {"artifacts": arts, "links": links, "statements": stmts, "history": hist}


Store = SQLiteStore
"""The name the engine, the pass and the writers construct the SQLite store by."""
