"""The whoosh backend of the keyword index (whoosh-reloaded, BM25F over one text field).

Kept for instances that set `[index] backend = "whoosh"`; it indexes the same analysed text as
the FTS5 backend (see docs/decisions/0004-keyword-index-on-fts5.md)."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from revetly_core.model import Artifact
from revetly_core.store.keyword import (
    REVISION_FILE,
    TOKEN_PATTERN,
    Alternatives,
    IndexBackend,
    KeywordSearcher,
    indexed_text,
)

FULL_BUILD_LIMIT_MB = 256
UPDATE_LIMIT_MB = 64
MERGE_OVER = 1_000
"""An update of more documents than this merges segments; smaller ones only add one."""


def analyzer() -> Any:
    """whoosh's own pipeline for the same analysis as `keyword.analyze` (tokens, stop words, Porter)."""
    from whoosh.analysis import StemmingAnalyzer

    from revetly_core.reads.text import STOPWORDS

    return StemmingAnalyzer(expression=TOKEN_PATTERN, stoplist=STOPWORDS)


def _schema() -> Any:
    from whoosh.fields import ID, TEXT, Schema

    return Schema(
        id=ID(stored=True, unique=True),
        type=ID(stored=True),
        project=ID(stored=True),
        text=TEXT(analyzer=analyzer(), phrase=False),
    )


def _doc(a: Artifact) -> dict[str, str]:
    return {"id": a.id, "type": a.type, "project": a.project, "text": indexed_text(a)}


class WhooshBackend(IndexBackend):
    """A whoosh index directory: full builds in one segment, small updates never merge."""

    def present(self) -> bool:
        return any(self.directory.glob("_MAIN_*.toc"))

    def rebuild(self, docs: Iterable[Artifact], count: int) -> None:
        from whoosh import index

        for entry in self.directory.iterdir():
            if entry.name == REVISION_FILE:
                continue
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        ix = index.create_in(str(self.directory), _schema())
        writer = ix.writer(limitmb=FULL_BUILD_LIMIT_MB)
        try:
            for a in docs:
                writer.add_document(**_doc(a))
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        ix.close()
        gc.collect()  # whoosh readers linger until the cyclic collector runs

    def update(self, changed: list[Artifact], existing: set[str]) -> None:
        from whoosh import index

        ix = index.open_dir(str(self.directory))
        writer = ix.writer(limitmb=UPDATE_LIMIT_MB)
        try:
            for a in changed:
                if a.id in existing:
                    writer.delete_by_term("id", a.id)
                writer.add_document(**_doc(a))
        except BaseException:
            writer.cancel()
            raise
        writer.commit(merge=len(changed) > MERGE_OVER)
        ix.close()
        del writer, ix
        gc.collect()

    def open(self) -> WhooshSearcher:
        return WhooshSearcher(self.directory)


class WhooshSearcher(KeywordSearcher):
    """A whoosh searcher scored with BM25F."""

    def __init__(self, directory: Path) -> None:
        from whoosh import index, scoring

        self._ix = index.open_dir(str(directory))
        self._searcher = self._ix.searcher(weighting=scoring.BM25F())
        self.doc_count = int(self._searcher.doc_count())

    def close(self) -> None:
        self._searcher.close()
        self._ix.close()

    def document_frequency(self, term: str) -> int:
        return int(self._searcher.doc_frequency("text", term))

    def query(self, units: list[Alternatives], limit: int, *, every: bool) -> list[tuple[str, float]]:
        from whoosh.query import And, Or, Term

        def spelled(terms: list[str]) -> Any:
            parts = [Term("text", t) for t in terms]
            return parts[0] if len(parts) == 1 else And(parts)

        def unit(alternatives: Alternatives) -> Any:
            options = [spelled(a) for a in alternatives if a]
            return options[0] if len(options) == 1 else Or(options)

        built = [unit(u) for u in units]
        query = built[0] if len(built) == 1 else (And if every else Or)(built)
        results = self._searcher.search(query, limit=limit)
        return [(str(r["id"]), float(r.score)) for r in results]
