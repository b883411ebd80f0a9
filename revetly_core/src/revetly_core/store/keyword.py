"""The keyword index: whoosh BM25 over each artifact's own id, title and body, English stemming."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from revetly_core.model import Artifact

INDEX_FORMAT = 3
"""Bumped when what the index holds or how it tokenizes changes: the next pass rebuilds it."""
TITLE_BOOST = 3.0
"""How much more a title word weighs than a body word."""
FULL_BUILD_LIMIT_MB = 256
UPDATE_LIMIT_MB = 64
MULTIPROCESS_THRESHOLD = 10**9
"""A full build over more documents than this uses both cores."""
_REVISION_FILE = "REVISION"


TOKEN_PATTERN = r"[A-Za-z][A-Za-z0-9]*-\d+|\w+(?:\.?\w+)*"
"""Words, except that an id such as STORY-012 stays one token rather than 'story' and '012'."""


def analyzer() -> Any:
    """English stemming over our tokens: the one analyzer for indexing and for queries."""
    from whoosh.analysis import StemmingAnalyzer

    from revetly_core.reads.text import STOPWORDS

    return StemmingAnalyzer(expression=TOKEN_PATTERN, stoplist=STOPWORDS)


def _schema() -> Any:
    from whoosh.fields import ID, TEXT, Schema

    analyzer_ = analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        type=ID(stored=True),
        project=ID(stored=True),
        text=TEXT(analyzer=analyzer_, phrase=False),
    )


def _doc(a: Artifact) -> dict[str, str]:
    """The indexed form: the id rides with the title; a withheld artifact's body is not indexed."""
    body = "" if a.metadata.get("withheld") else a.body
    heading = f"{a.id} {a.title}\n"
    return {"id": a.id, "type": a.type, "project": a.project,
            "text": heading * int(TITLE_BOOST) + body}


class KeywordIndex:
    """A rebuildable cache of the store: never the source of truth, rebuilt when torn."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._shared: KeywordSearcher | None = None
        self._shared_revision: int | None = None

    def revision(self) -> int | None:
        """The corpus revision the index was last committed at, or None when absent or torn."""
        try:
            return int((self.directory / _REVISION_FILE).read_text().strip())
        except (OSError, ValueError):
            return None

    def _set_revision(self, revision: int) -> None:
        tmp = self.directory / (_REVISION_FILE + ".tmp")
        tmp.write_text(str(revision))
        tmp.replace(self.directory / _REVISION_FILE)

    def rebuild(self, docs: Iterable[Artifact], count: int, revision: int) -> None:
        """Write a fresh index over every document (the full pass, or a torn index)."""
        from whoosh import index

        if self.directory.exists():
            shutil.rmtree(self.directory)
        self.directory.mkdir(parents=True)
        ix = index.create_in(str(self.directory), _schema())
        procs = 2 if count > MULTIPROCESS_THRESHOLD else 1
        kwargs: dict[str, Any] = {"limitmb": FULL_BUILD_LIMIT_MB}
        if procs > 1:
            kwargs.update(procs=procs, multisegment=True)
        writer = ix.writer(**kwargs)
        try:
            for a in docs:
                writer.add_document(**_doc(a))
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        ix.close()
        self._set_revision(revision)
        gc.collect()

    def update(self, changed: list[Artifact], existing: set[str], revision: int) -> None:
        """Apply one pass's changes in one writer; small commits never merge segments."""
        from whoosh import index

        if not changed:
            self._set_revision(revision)
            return
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
        writer.commit(merge=len(changed) > 1_000)
        ix.close()
        del writer, ix
        gc.collect()
        self._set_revision(revision)

    def searcher(self) -> KeywordSearcher:
        """An open searcher for several queries in a row; close it (or use `with`)."""
        return KeywordSearcher(self.directory)

    def shared_searcher(self) -> KeywordSearcher:
        """One searcher kept open across reads, reopened when the index revision moves."""
        revision = self.revision()
        if self._shared is None or self._shared_revision != revision:
            if self._shared is not None:
                self._shared.close()
            self._shared = KeywordSearcher(self.directory)
            self._shared_revision = revision
        return self._shared


Alternatives = list[list[str]]
"""One unit of a query: its alternative spellings, each a list of stemmed terms."""


class KeywordSearcher:
    """BM25F queries over the index: all units first, widened to any unit when too few match."""

    def __init__(self, directory: Path) -> None:
        from whoosh import index, scoring

        self._ix = index.open_dir(str(directory))
        self._searcher = self._ix.searcher(weighting=scoring.BM25F())
        self.doc_count = self._searcher.doc_count()

    def __enter__(self) -> KeywordSearcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._searcher.close()
        self._ix.close()

    @staticmethod
    def analyze(text: str) -> list[str]:
        """Stemmed, stopword-free terms of text, as the index holds them."""
        return [t.text for t in analyzer()(text)]

    def idf(self, term: str) -> float:
        """How rare a stemmed term is across bodies (0 when absent)."""
        df = self._searcher.doc_frequency("text", term)
        if df == 0:
            return 0.0
        import math

        return math.log(1 + (self.doc_count - df + 0.5) / (df + 0.5))

    def search(
        self, units: list[Alternatives], limit: int, *, any_unit: bool = False,
        enough: int | None = None,
    ) -> list[tuple[str, float]]:
        """(id, score) best first: AND over units unless any_unit, widened to OR when AND finds
        fewer than `enough` (default: limit) rows."""
        from whoosh.query import And, Or, Term

        def spelled(terms: list[str]) -> object:
            parts = [Term("text", t) for t in terms]
            return parts[0] if len(parts) == 1 else And(parts)

        def unit(alts: Alternatives) -> object:
            options = [spelled(a) for a in alts if a]
            return options[0] if len(options) == 1 else Or(options)

        built = [unit(u) for u in units if any(u)]
        if not built:
            return []
        hits: list[tuple[str, float]] = []
        for combine in ((Or,) if any_unit else (And, Or)):
            query = combine(built) if len(built) > 1 else built[0]
            results = self._searcher.search(query, limit=limit)
            hits = [(r["id"], float(r.score)) for r in results]
            if len(hits) >= (limit if enough is None else enough):
                break
        return hits
