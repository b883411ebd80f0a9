"""SQLiteRagProvider: the built-in local provider. Passages live encrypted in the evidence vault;
its FTS5 index is built only in RAM (never on disk), once per source revision, and cached.

An import extends the cached index with what it appended, so a batch costs what it adds; the
index is rebuilt from the vault only when its record count is not the one this process expects
(another process appended, or an append failed halfway).
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from revetly_core.governed.feedback import FeedbackService
from revetly_core.governed.scope import Scope
from revetly_core.governed.sources import (
    RagHit,
    RagQuery,
    RagSource,
    filter_hits,
    validate_hit,
)
from revetly_core.refusal import Refusal

PROVIDER_ID = "sqlite-vault"
MAX_PUT_BATCH = 1000
RECORD_TARGET_BYTES = 192 * 1024
CANDIDATES = 200
_WORD = re.compile(r"\w+", re.UNICODE)


def docs_partition(source: RagSource) -> str:
    """The vault partition holding one source revision's passages."""
    return f"{docs_partition_prefix(source.scope, source.source_id)}{source.revision}"


def docs_partition_prefix(scope: Scope, source_id: str) -> str:
    """The common prefix of the partitions holding every revision of one source's passages."""
    return f"docs:{scope.key}:{source_id}@"


def fts_match(text: str) -> str | None:
    """The words of a query as an FTS5 OR of quoted terms (no operators from the caller survive)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:32]
    return " OR ".join(f'"{w}"' for w in words) or None


def _row(hit: RagHit) -> list[Any]:
    return [hit.document_id, hit.chunk_id, hit.passage, hit.citation, hit.locator, hit.jurisdiction,
            hit.effective_from.isoformat() if hit.effective_from else None,
            hit.effective_to.isoformat() if hit.effective_to else None]


def _hit(source: RagSource, row: list[Any]) -> RagHit:
    return RagHit.make(source, row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7])


def _size(row: list[Any]) -> int:
    return sum(len(str(v).encode()) for v in row) + 40


@dataclass
class _Index:
    records: int
    hits: list[RagHit]
    by_key: dict[tuple[str, str], int]
    fts: sqlite3.Connection
    lock: threading.Lock


def stored_digest(index: _Index, key: tuple[str, str]) -> str | None:
    """The SHA-256 of the passage the index holds for (document, chunk), or None."""
    position = index.by_key.get(key)
    return None if position is None else index.hits[position].sha256


def _index_passages(fts: sqlite3.Connection, start: int, hits: list[RagHit]) -> None:
    """Add passages to a RAM FTS5 index, rowid = their position in the index's hit list."""
    fts.executemany("INSERT INTO passages(rowid, body) VALUES (?, ?)",
                    ((start + i, h.passage) for i, h in enumerate(hits)))


class SQLiteRagProvider:
    """The reference adapter: provider_id ``sqlite-vault``, egress ``none``."""

    provider_id = PROVIDER_ID
    egress = "none"

    def __init__(self, feedback: FeedbackService) -> None:
        self.evidence = feedback.evidence
        self._indexes: dict[str, _Index] = {}
        self._lock = threading.Lock()

    def source(self, source_id: str, scope: Scope, collection: str, revision: str) -> RagSource:
        """A RagSource served by this provider."""
        return RagSource(source_id, scope, collection, revision, "none", PROVIDER_ID)

    def put_documents(self, owner_token: str, source: RagSource, hits: Sequence[RagHit]) -> dict[str, Any]:
        """Owner only: store a bounded batch of passages for one source revision, encrypted.

        A (document, chunk) already stored with the same text is left as is; with different
        text it is refused: a changed passage needs a new source revision.
        """
        self.evidence.principals.require_owner(owner_token)
        if source.provider_id != PROVIDER_ID or source.egress != "none":
            raise Refusal("bad_source", "this provider serves sources with provider_id 'sqlite-vault' "
                          "and egress 'none'", "build the source with SQLiteRagProvider.source(...)")
        if len(hits) > MAX_PUT_BATCH:
            raise Refusal("batch_too_large",
                          f"{len(hits)} passages in one batch; the bound is {MAX_PUT_BATCH}",
                          "split the import into batches")
        with self._lock:
            index = self._index(source)
            fresh: list[RagHit] = []
            batch_texts: dict[tuple[str, str], str] = {}
            unchanged = 0
            for hit in hits:
                validate_hit(source, hit)
                key = (hit.document_id, hit.chunk_id)
                known = stored_digest(index, key) or batch_texts.get(key)
                if known is not None:
                    if known != hit.sha256:
                        raise Refusal("revision_required",
                                      f"{key[0]}/{key[1]} already holds other text at "
                                      f"revision {source.revision}",
                                      "put changed passages under a new revision")
                    unchanged += 1
                    continue
                batch_texts[key] = hit.sha256
                fresh.append(_hit(source, _row(hit)))
            appended = self._append_rows(source, [_row(hit) for hit in fresh])
            self._extend(source, index, fresh, appended)
        return {"source_id": source.source_id, "revision": source.revision, "added": len(fresh),
                "unchanged": unchanged, "usage": self.evidence.usage(docs_partition(source))}

    def _append_rows(self, source: RagSource, rows: list[list[Any]]) -> int:
        """Append rows as records of at most about 192 KiB each; the number of records appended."""
        partition = docs_partition(source)
        batch: list[list[Any]] = []
        size = 0
        appended = 0
        for row in [*rows, None]:
            if row is not None and (not batch or size + _size(row) <= RECORD_TARGET_BYTES):
                batch.append(row)
                size += _size(row)
                continue
            if batch:
                record_id = f"batch-{time.time_ns():020d}-{secrets.token_hex(4)}"
                self.evidence.append(partition, record_id, {"rows": batch})
                appended += 1
            batch, size = ([row], _size(row)) if row is not None else ([], 0)
        return appended

    def _extend(self, source: RagSource, index: _Index, hits: list[RagHit], appended: int) -> None:
        """Add what this import appended to the cached index, or drop the index when the vault
        holds records this process did not write (the next use rebuilds it)."""
        partition = docs_partition(source)
        if self.evidence.usage(partition)["records"] != index.records + appended:
            self._indexes.pop(partition, None)
            return
        start = len(index.hits)
        with index.lock:
            _index_passages(index.fts, start, hits)
            index.hits.extend(hits)
            index.by_key.update(((h.document_id, h.chunk_id), start + i) for i, h in enumerate(hits))
            index.records += appended

    def _index(self, source: RagSource) -> _Index:
        """The RAM index of a source revision, rebuilt when its record count changed."""
        partition = docs_partition(source)
        records = self.evidence.usage(partition)["records"]
        index = self._indexes.get(partition)
        if index is not None and index.records == records:
            return index
        hits: list[RagHit] = []
        for _, record in self.evidence.records(partition, "batch-"):
            hits.extend(_hit(source, row) for row in record["rows"])
        fts = sqlite3.connect(":memory:", check_same_thread=False)
        fts.execute("PRAGMA temp_store=MEMORY")
        fts.execute("CREATE VIRTUAL TABLE passages USING fts5(body, tokenize='porter unicode61')")
        _index_passages(fts, 0, hits)
        index = _Index(records, hits, {(h.document_id, h.chunk_id): i for i, h in enumerate(hits)},
                       fts, threading.Lock())
        self._indexes[partition] = index
        return index

    # ---- the adapter protocol ----

    def search(self, source: RagSource, query: RagQuery, *, deadline: float) -> tuple[RagHit, ...]:
        """BM25 over the RAM index, best first, the query's filters applied."""
        with self._lock:
            index = self._index(source)
        match = fts_match(query.text)
        if match is None:
            return ()
        with index.lock:
            rows = index.fts.execute(
                "SELECT rowid, bm25(passages) FROM passages WHERE passages MATCH ? "
                "ORDER BY bm25(passages), rowid LIMIT ?", (match, CANDIDATES)).fetchall()
        if time.monotonic() > deadline:
            raise TimeoutError("deadline passed")
        scored = tuple(_with_score(index.hits[rowid], -score) for rowid, score in rows)
        return filter_hits(scored, query)

    def inspect(self, source: RagSource, document_id: str, chunk_id: str, *, deadline: float) -> RagHit:
        """One stored passage of the source revision."""
        with self._lock:
            index = self._index(source)
        position = index.by_key.get((document_id, chunk_id))
        if position is None:
            raise Refusal("no_passage", f"no passage {document_id}/{chunk_id} in {source.source_id}",
                          "use ids from a search hit")
        return index.hits[position]


def _with_score(hit: RagHit, score: float) -> RagHit:
    from dataclasses import replace

    return replace(hit, score=round(score, 6))

