"""The SQLite FTS5 backend of the keyword index: one database file beside the REVISION stamp.

The text is analysed in Python (`keyword.analyze`) and stored as its terms, so FTS5 only splits on
spaces: stemming, stop words and ids-as-one-token are the same as the whoosh backend's. Each
population has its own FTS5 table (`terms` for records, `commit_terms` for commits), so BM25
reads each population's own statistics."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from revetly_core.store.batches import ID_BATCH
from revetly_core.store.keyword import (
    POPULATIONS,
    REVISION_FILE,
    Alternatives,
    IndexAnalyzer,
    IndexBackend,
    KeywordSearcher,
    Population,
    merged,
    population,
)

if TYPE_CHECKING:
    from revetly_core.model import Artifact

DB_FILE = "keyword.sqlite"
TOKENIZER = "unicode61 remove_diacritics 0 tokenchars '-._'"
"""Analysed terms keep their '-', '.' and '_' (STORY-012, v2.1, snake_case): one term, one token."""
BUILD_BATCH = 2_000
SEARCH_CACHE_KIB = 16_384
"""The page cache of a searcher's connection, in KiB (SQLite's default is 2,000): a kept searcher
reads the same posting lists and document sizes query after query, and at 10k they outgrow the
default (allocated as pages are read, so a one-shot search pays nothing for it)."""
TIE_SLACK = 16
"""Rows past the limit a ranked query sorts and reads, so that a tie across the cut is seen
whole (a longer tie reads the whole ranking)."""

TABLES: dict[Population, tuple[str, str]] = {
    "records": ("terms", "vocab"),
    "commits": ("commit_terms", "commit_vocab"),
}
"""Population -> (its FTS5 table, its vocabulary table)."""

_SCHEMA = "CREATE TABLE docs (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, type TEXT, " \
    "project TEXT);\n" + "".join(
        f"CREATE VIRTUAL TABLE {table} USING fts5 (text, tokenize = \"{TOKENIZER}\");\n"
        f"CREATE VIRTUAL TABLE {vocab} USING fts5vocab ({table}, 'row');\n"
        for table, vocab in TABLES.values())


def analysed(a: Artifact, analyzer: IndexAnalyzer | None = None) -> str:
    """The stored form of one document: the analysed terms of its indexed text, space-joined."""
    return (analyzer or IndexAnalyzer()).indexed(a)


def quoted(term: str) -> str:
    """An FTS5 string literal: the term in double quotes, inner quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


def phrase_expression(pairs: list[tuple[str, str]]) -> str:
    """The MATCH text of adjacent term pairs: each an exact two-term phrase, any of them."""
    return " OR ".join(quoted(f"{a} {b}") for a, b in pairs)


def match_expression(units: list[Alternatives], *, every: bool) -> str:
    """The MATCH text: units joined by AND (every) or OR; a unit is any spelling, all its terms."""

    def spelled(terms: list[str]) -> str:
        parts = [quoted(t) for t in terms]
        return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"

    def unit(alternatives: Alternatives) -> str:
        options = [spelled(a) for a in alternatives if a]
        return options[0] if len(options) == 1 else "(" + " OR ".join(options) + ")"

    return (" AND " if every else " OR ").join(unit(u) for u in units)


class Fts5Backend(IndexBackend):
    """Builds into a temporary file and swaps it in; updates in one transaction (WAL)."""

    @property
    def path(self) -> Path:
        return self.directory / DB_FILE

    def present(self) -> bool:
        return self.path.is_file()

    def rebuild(self, docs: Iterable[Artifact], count: int) -> None:
        build = self.start_build()
        try:
            for a in docs:
                build.add(a)
        except BaseException:
            build.abort()
            raise
        build.finish()

    def start_build(self) -> Fts5Build:
        """A fresh index taking its documents one at a time (in id order), swapped in by
        ``finish``: what ``rebuild`` writes, fed by a caller already reading every document."""
        return Fts5Build(self)

    def update(self, changed: list[Artifact], existing: set[str]) -> None:
        conn = sqlite3.connect(self.path)
        try:
            with conn:
                for a in changed:
                    if a.id in existing:
                        row = conn.execute("SELECT rowid FROM docs WHERE id = ?", (a.id,)).fetchone()
                        if row is not None:
                            for table, _ in TABLES.values():
                                conn.execute(f"DELETE FROM {table} WHERE rowid = ?", row)
                            conn.execute("DELETE FROM docs WHERE rowid = ?", row)
                    cur = conn.execute("INSERT INTO docs (id, type, project) VALUES (?, ?, ?)",
                                       (a.id, a.type, a.project))
                    table = TABLES[population(a)][0]
                    conn.execute(f"INSERT INTO {table} (rowid, text) VALUES (?, ?)",
                                 (cur.lastrowid, analysed(a)))
        finally:
            conn.close()

    def open(self) -> Fts5Searcher:
        return Fts5Searcher(self.path)


class Fts5Build:
    """One rebuild in progress: a temporary database written BUILD_BATCH documents at a time in
    one transaction (rowids from 1 in the order given), then optimized and swapped in."""

    def __init__(self, backend: Fts5Backend) -> None:
        self.directory, self.path = backend.directory, backend.path
        self.tmp = self.directory / (DB_FILE + ".tmp")
        self.tmp.unlink(missing_ok=True)
        self.conn = sqlite3.connect(self.tmp)
        try:
            self.conn.execute("PRAGMA journal_mode = OFF")
            self.conn.execute("PRAGMA synchronous = OFF")
            self.conn.executescript(_SCHEMA)
        except BaseException:
            self.abort()
            raise
        self.analyzer = IndexAnalyzer()
        self._batch: list[Artifact] = []
        self._first = 1

    def add(self, a: Artifact) -> None:
        """Take one document; every BUILD_BATCH of them are written together."""
        self._batch.append(a)
        if len(self._batch) == BUILD_BATCH:
            self._write()

    def _write(self) -> None:
        batch, first, analyzer = self._batch, self._first, self.analyzer
        self.conn.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)",
                              [(first + i, a.id, a.type, a.project) for i, a in enumerate(batch)])
        for name, (table, _) in TABLES.items():
            self.conn.executemany(
                f"INSERT INTO {table} (rowid, text) VALUES (?, ?)",
                [(first + i, analysed(a, analyzer)) for i, a in enumerate(batch)
                 if population(a) == name])
        self._first += len(batch)
        self._batch = []

    def finish(self) -> None:
        """Write the rest, optimize, commit, and swap the new index in for the old."""
        try:
            if self._batch:
                self._write()
            for table, _ in TABLES.values():
                self.conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
            self.conn.commit()
            self.conn.execute("PRAGMA journal_mode = WAL")
        except BaseException:
            self.abort()
            raise
        self.conn.close()
        self.tmp.replace(self.path)
        _remove_other_files(self.directory)

    def abort(self) -> None:
        """Drop the build: the old index stays as it was."""
        self.conn.close()
        self.tmp.unlink(missing_ok=True)


def _remove_other_files(directory: Path) -> None:
    """After a swap, nothing but this backend's database and the stamp stays (e.g. old whoosh files)."""
    import shutil

    keep = {DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm", REVISION_FILE}
    for entry in directory.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


class Fts5Searcher(KeywordSearcher):
    """One read connection; safe to share across threads (each call is one statement)."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise FileNotFoundError(path)
        self._conn = sqlite3.connect(path, check_same_thread=False)
        self._conn.execute("PRAGMA query_only = 1")
        self._conn.execute(f"PRAGMA cache_size = -{SEARCH_CACHE_KIB}")
        self.doc_count = int(self._conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0])

    def close(self) -> None:
        self._conn.close()

    def document_frequency(self, term: str) -> int:
        total = 0
        for _, vocab in TABLES.values():
            row = self._conn.execute(f"SELECT doc FROM {vocab} WHERE term = ?", (term,)).fetchone()
            total += int(row[0]) if row else 0
        return total

    def query(
        self, units: list[Alternatives], limit: int, *, every: bool,
        population: Population | None = None,
    ) -> list[tuple[str, float]]:
        expression = match_expression(units, every=every)
        asked = POPULATIONS if population is None else (population,)
        return merged((self._query_table(TABLES[p][0], expression, limit) for p in asked), limit)

    def _query_table(self, table: str, expression: str, limit: int) -> list[tuple[str, float]]:
        """The best `limit` documents by BM25, ties by id: ranked without the id table, then
        only the rows that can make the cut are named (the join of every match is the cost)."""
        top = self._named_through_ties(table, expression, limit)
        if any(i is None for _, _, i in top):  # a row without its id (never written so)
            return self._query_table_joined(table, expression, limit)
        named = sorted((rank, str(i)) for _, rank, i in top)
        return [(i, -float(r)) for r, i in named[:limit]]

    def _named_through_ties(
        self, table: str, expression: str, limit: int,
    ) -> list[tuple[int, float, str | None]]:
        """(rowid, BM25, id) of the first `limit` rows and every row tied with the last of them:
        a bounded sort of `limit + TIE_SLACK` rows (SQLite keeps only those), named in the same
        statement; the whole ranking, named after, only when a tie runs past them."""
        if limit <= 0:
            return []
        read = limit + TIE_SLACK
        head = self._conn.execute(
            f"SELECT t.rid, t.rank, d.id FROM (SELECT rowid AS rid, bm25({table}) AS rank "
            f"FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?) t "
            f"LEFT JOIN docs d ON d.rowid = t.rid ORDER BY t.rank", (expression, read)).fetchall()
        if settles_the_ties(head, limit, read):
            return through_ties(head, limit)
        top = through_ties(self._conn.execute(
            f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY 2",
            (expression,)), limit)
        ids = self._ids_of([rowid for rowid, _ in top])
        return [(rowid, rank, ids.get(rowid)) for rowid, rank in top]

    def phrase_scores(
        self, pairs: list[tuple[str, str]], ids: list[str], population: Population,
    ) -> dict[str, float]:
        if not pairs or not ids:
            return {}
        table = TABLES[population][0]
        # the phrase match over the whole table, filtered here: a rowid IN (...) beside MATCH
        # makes FTS5 evaluate the expression once per listed row (ten times slower at 10k)
        rows = self._conn.execute(f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ?",
                                  (phrase_expression(pairs),)).fetchall()
        if not rows:
            return {}
        named = self._named_among([r for r, _ in rows], ids)
        return {named[r]: -float(score) for r, score in rows if r in named}

    def _named_among(self, rowids: list[int], ids: list[str]) -> dict[int, str]:
        """rowid -> id for the rows of `rowids` whose id is one of `ids`, looked up from the
        shorter of the two lists (a phrase is mostly rarer than the pool is long)."""
        if len(rowids) < len(ids):
            wanted = set(ids)
            return {r: i for r, i in self._ids_of(rowids).items() if i in wanted}
        return {rowid: i for i, rowid in self._rowids_of(ids).items()}

    def _docs_pairs(self, key: str, value: str, keys: list[str] | list[int]) -> list[tuple[Any, Any]]:
        """(key, value) of each docs row whose ``key`` column is one of ``keys``, read in batches."""
        out: list[tuple[Any, Any]] = []
        for start in range(0, len(keys), ID_BATCH):
            part = keys[start:start + ID_BATCH]
            out.extend(self._conn.execute(
                f"SELECT {key}, {value} FROM docs WHERE {key} IN ({','.join('?' * len(part))})", part))
        return out

    def _rowids_of(self, ids: list[str]) -> dict[str, int]:
        """document id -> rowid, for the ids the docs table holds."""
        return {str(i): int(r) for i, r in self._docs_pairs("id", "rowid", ids)}

    def _ids_of(self, rowids: list[int]) -> dict[int, str]:
        """rowid -> document id, for the rowids the docs table holds."""
        return {int(r): str(i) for r, i in self._docs_pairs("rowid", "id", rowids)}

    def _query_table_joined(self, table: str, expression: str, limit: int) -> list[tuple[str, float]]:
        rows = self._conn.execute(
            f"SELECT d.id, bm25({table}) AS rank FROM {table} JOIN docs d ON d.rowid = {table}.rowid "
            f"WHERE {table} MATCH ? ORDER BY rank, d.id LIMIT ?", (expression, limit),
        ).fetchall()
        return [(str(i), -float(r)) for i, r in rows]


Ranked = TypeVar("Ranked", bound=tuple[Any, ...])
"""A row of a best-first ranking: its score is its second value."""


def settles_the_ties(head: Sequence[tuple[Any, ...]], limit: int, read: int) -> bool:
    """Whether the first `read` rows of a best-first ranking hold its first `limit` rows and
    every row tied with the last of them: the ranking ended within them, or a row read after
    the `limit`-th ranks below it."""
    return len(head) < read or (len(head) > limit and head[-1][1] != head[limit - 1][1])


def through_ties(ranked: Iterable[Ranked], limit: int) -> list[Ranked]:
    """The first `limit` rows of a best-first ranking and every row tied with the last of them,
    so that breaking ties by another key afterwards still finds the same first `limit`."""
    top: list[Ranked] = []
    if limit <= 0:
        return top
    for row in ranked:
        if len(top) >= limit and row[1] != top[limit - 1][1]:
            break
        top.append(row)
    return top
