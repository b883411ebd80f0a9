"""The keyword index: whoosh BM25F over each artifact's own title and body, English stemming."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from revetly_core.model import Artifact

TITLE_BOOST = 3.0
"""How much more a title word weighs than a body word."""
FULL_BUILD_LIMIT_MB = 256
UPDATE_LIMIT_MB = 64
MULTIPROCESS_THRESHOLD = 5_000
"""A full build over more documents than this uses both cores."""
_REVISION_FILE = "REVISION"


def _schema() -> Any:
    from whoosh.analysis import StemmingAnalyzer
    from whoosh.fields import ID, TEXT, Schema

    analyzer = StemmingAnalyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        type=ID(stored=True),
        project=ID(stored=True),
        title=TEXT(analyzer=analyzer, phrase=False, field_boost=TITLE_BOOST),
        body=TEXT(analyzer=analyzer, phrase=False),
    )


def _doc(a: Artifact) -> dict[str, str]:
    return {"id": a.id, "type": a.type, "project": a.project, "title": a.title, "body": a.body}


class KeywordIndex:
    """A rebuildable cache of the store: never the source of truth, rebuilt when torn."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

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

    def search(self, text: str, limit: int = 10) -> list[tuple[str, float]]:
        """(id, BM25F score) of the best matches: all words first, any word when too few."""
        from whoosh import index, qparser, scoring

        ix = index.open_dir(str(self.directory))
        try:
            with ix.searcher(weighting=scoring.BM25F()) as searcher:
                hits: list[tuple[str, float]] = []
                for group in (qparser.AndGroup, qparser.OrGroup):
                    parser = qparser.MultifieldParser(["title", "body"], ix.schema, group=group)
                    query = parser.parse(text)
                    results = searcher.search(query, limit=limit)
                    hits = [(r["id"], float(r.score)) for r in results]
                    if len(hits) >= limit:
                        break
                return hits
        finally:
            ix.close()
