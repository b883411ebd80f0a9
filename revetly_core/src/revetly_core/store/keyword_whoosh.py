"""The whoosh backend of the keyword index (whoosh-reloaded, BM25F over one text field).

Kept for instances that set `[index] backend = "whoosh"`; it indexes the same analysed text as
the FTS5 backend (see docs/decisions/0004-keyword-index-on-fts5.md). Each population is its own
named whoosh index in the directory (MAIN for records, COMMITS for commits), scored on its own
statistics."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from revetly_core.model import Artifact
from revetly_core.store.keyword import (
    POPULATIONS,
    REVISION_FILE,
    TOKEN_PATTERN,
    Alternatives,
    IndexBackend,
    KeywordSearcher,
    Population,
    indexed_text,
    merged,
    population,
)

FULL_BUILD_LIMIT_MB = 256
UPDATE_LIMIT_MB = 64
MERGE_OVER = 1_000
"""An update of more documents than this merges segments; smaller ones only add one."""
INDEX_NAMES: dict[Population, str] = {"records": "MAIN", "commits": "COMMITS"}
"""Population -> the name of its whoosh index inside the directory."""


def analyzer() -> Any:
    """whoosh's own pipeline for the same analysis as `keyword.analyze` (tokens, a dotted token's
    parts, stop words, Porter)."""
    from whoosh.analysis import LowercaseFilter, RegexTokenizer, StemFilter, StopFilter

    from revetly_core.store.keyword_whoosh_parts import DottedPartsFilter
    from revetly_core.store.stopwords import STOPWORDS

    return (RegexTokenizer(expression=TOKEN_PATTERN) | LowercaseFilter() | DottedPartsFilter()
            | StopFilter(stoplist=STOPWORDS) | StemFilter())


def _schema() -> Any:
    from whoosh.fields import ID, TEXT, Schema

    return Schema(
        id=ID(stored=True, unique=True),
        type=ID(stored=True),
        project=ID(stored=True),
        text=TEXT(analyzer=analyzer(), phrase=True),
    )


def _doc(a: Artifact) -> dict[str, str]:
    return {"id": a.id, "type": a.type, "project": a.project, "text": indexed_text(a)}


class WhooshBackend(IndexBackend):
    """A whoosh index directory: full builds in one segment, small updates never merge."""

    def present(self) -> bool:
        return all(any(self.directory.glob(f"_{name}_*.toc")) for name in INDEX_NAMES.values())

    def rebuild(self, docs: Iterable[Artifact], count: int) -> None:
        from whoosh import index

        for entry in self.directory.iterdir():
            if entry.name == REVISION_FILE:
                continue
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        indexes = {p: index.create_in(str(self.directory), _schema(), indexname=INDEX_NAMES[p])
                   for p in POPULATIONS}
        writers = {p: ix.writer(limitmb=FULL_BUILD_LIMIT_MB // len(POPULATIONS))
                   for p, ix in indexes.items()}
        try:
            for a in docs:
                writers[population(a)].add_document(**_doc(a))
        except BaseException:
            for writer in writers.values():
                writer.cancel()
            raise
        for p, writer in writers.items():
            writer.commit()
            indexes[p].close()
        gc.collect()  # whoosh readers linger until the cyclic collector runs

    def update(self, changed: list[Artifact], existing: set[str]) -> None:
        from whoosh import index

        for p in POPULATIONS:
            ix = index.open_dir(str(self.directory), indexname=INDEX_NAMES[p])
            writer = ix.writer(limitmb=UPDATE_LIMIT_MB)
            try:
                for a in changed:
                    if a.id in existing:
                        writer.delete_by_term("id", a.id)
                    if population(a) == p:
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

        self._ix = {p: index.open_dir(str(directory), indexname=INDEX_NAMES[p]) for p in POPULATIONS}
        self._searchers = {p: ix.searcher(weighting=scoring.BM25F()) for p, ix in self._ix.items()}
        self.doc_count = sum(int(s.doc_count()) for s in self._searchers.values())

    def close(self) -> None:
        for p in POPULATIONS:
            self._searchers[p].close()
            self._ix[p].close()

    def document_frequency(self, term: str) -> int:
        return sum(int(s.doc_frequency("text", term)) for s in self._searchers.values())

    def phrase_scores(
        self, pairs: list[tuple[str, str]], ids: list[str], population: Population,
    ) -> dict[str, float]:
        from whoosh.query import Or, Phrase, Term

        searcher = self._searchers[population]
        if not pairs or not ids or not searcher.schema["text"].format.supports("positions"):
            return {}  # an index written before positions were kept: rebuilt by `sync --full`
        query = Or([Phrase("text", [a, b]) for a, b in pairs])
        within = Or([Term("id", i) for i in ids])
        return {str(r["id"]): float(r.score)
                for r in searcher.search(query, filter=within, limit=len(ids))}

    def query(
        self, units: list[Alternatives], limit: int, *, every: bool,
        population: Population | None = None,
    ) -> list[tuple[str, float]]:
        from whoosh.query import And, Or, Term

        def spelled(terms: list[str]) -> Any:
            parts = [Term("text", t) for t in terms]
            return parts[0] if len(parts) == 1 else And(parts)

        def unit(alternatives: Alternatives) -> Any:
            options = [spelled(a) for a in alternatives if a]
            return options[0] if len(options) == 1 else Or(options)

        built = [unit(u) for u in units]
        query = built[0] if len(built) == 1 else (And if every else Or)(built)
        asked = POPULATIONS if population is None else (population,)
        return merged(([(str(r["id"]), float(r.score))
                        for r in self._searchers[p].search(query, limit=limit)] for p in asked), limit)
