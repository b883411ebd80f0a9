"""The keyword index: BM25 over each artifact's own id, title and body, English stemming.

Commits and every other record are two populations, each scored on its own statistics (a
commit's one-line subject would otherwise skew the term rarity and the lengths a task is
measured against); a search names the population it asks, or gets both.

One facade (`KeywordIndex`) over two backends that index the same analysed text: SQLite FTS5
(the default) and whoosh. The analysis, the indexed text and the query shape live here, once.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from revetly_core.store.stopwords import STOPWORDS

if TYPE_CHECKING:
    from revetly_core.model import Artifact

INDEX_FORMAT = 6
"""Bumped when what the index holds or how it tokenizes changes: the next pass rebuilds it."""
TITLE_BOOST = 3
"""How many times the id and title are indexed ahead of the body: a title word weighs three."""
MIN_TERM_LENGTH = 2
"""Shorter words are not indexed (nor searched for)."""
REVISION_FILE = "REVISION"

Backend = Literal["fts5", "whoosh"]
BACKENDS: tuple[Backend, ...] = ("fts5", "whoosh")
DEFAULT_BACKEND: Backend = "fts5"

TOKEN_PATTERN = r"[A-Za-z][A-Za-z0-9]*-\d+|\w+(?:\.?\w+)*"
"""Words, except that an id such as STORY-012 stays one token rather than 'story' and '012'."""
_TOKEN = re.compile(TOKEN_PATTERN)

Population = Literal["records", "commits"]
POPULATIONS: tuple[Population, ...] = ("records", "commits")

Alternatives = list[list[str]]
"""One unit of a query: its alternative spellings, each a list of stemmed terms."""


def keeps_its_ending(word: str) -> bool:
    """True when Porter removes nothing from the word: every rule strips a suffix ending in an
    ASCII lower-case letter (its patterns' ``$`` also matching before one final newline), so a
    word ending in anything else (story-012, v2) stays whole."""
    end = word[:-1] if word.endswith("\n") else word
    return not "a" <= end[-1:] <= "z"


def stem(word: str) -> str:
    """The Porter stem of one lowercased word (ids and numbers are their own stem)."""
    return word if keeps_its_ending(word) else _porter_stem(word)


@lru_cache(maxsize=65_536)
def _porter_stem(word: str) -> str:
    """Porter's stem of one word (cached: vocabularies repeat)."""
    from whoosh.lang.porter import stem as porter

    return str(porter(word))


def dotted_parts(word: str) -> list[str]:
    """The parts of a dotted token (`mqttstuff.ino` -> `mqttstuff`, `ino`), indexed after the
    whole so a file, module or version name also answers to each of its words; [] without a dot."""
    return [part for part in word.split(".") if part] if "." in word else []


def analyze(text: str) -> list[str]:
    """Terms as the index holds them: tokens lowercased, stop and one-letter words dropped, stemmed;
    a dotted token is followed by its parts (`dotted_parts`)."""
    terms: list[str] = []
    for match in _TOKEN.finditer(text):
        word = match.group().lower()
        for term in (word, *dotted_parts(word)):
            if len(term) >= MIN_TERM_LENGTH and term not in STOPWORDS:
                terms.append(stem(term))
    return terms


_CLOSERS = frozenset(".,;:!?)'\"")
"""Marks that end a chunk after its word without being part of any token."""


def chunk_terms(chunk: str) -> str:
    """``" ".join(analyze(chunk))`` for one whitespace-free chunk: a chunk of ASCII letters
    (and at most one closing mark) is its one word, lowercased and stemmed, without the regex."""
    word = chunk[:-1] if chunk[-1:] in _CLOSERS else chunk
    if word.isascii() and word.isalpha():
        word = word.lower()
        return stem(word) if len(word) >= MIN_TERM_LENGTH and word not in STOPWORDS else ""
    return " ".join(analyze(chunk))


CHUNK_CACHE_SIZE = 250_000
"""Distinct whitespace-separated chunks an `IndexAnalyzer` remembers the terms of (a bound on
its memory); past it a chunk is analysed each time it is met."""


class _ChunkTerms(dict[str, str]):
    """chunk -> the terms of analyze(chunk), space-joined ('' for none), filled on first sight
    while under its limit."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def __missing__(self, chunk: str) -> str:
        terms = chunk_terms(chunk)
        if len(self) < self.limit:
            self[chunk] = terms
        return terms


class IndexAnalyzer:
    """`analyze` for building an index: the terms of each whitespace-separated chunk are
    remembered, already joined, since no token spans whitespace and a corpus repeats its words."""

    def __init__(self, limit: int = CHUNK_CACHE_SIZE) -> None:
        self._chunks = _ChunkTerms(limit)

    def joined(self, text: str) -> str:
        """The terms of text space-joined, exactly " ".join(analyze(text)) (no term holds a
        space, and a chunk without terms adds nothing)."""
        return " ".join(filter(None, map(self._chunks.__getitem__, text.split())))

    def terms(self, text: str) -> Iterator[str]:
        """The terms of text, exactly as analyze(text) lists them."""
        return iter(self.joined(text).split())

    def indexed(self, a: Artifact) -> str:
        """The analysed terms of indexed_text(a), space-joined (the id and title analysed once)."""
        head = self.joined(f"{a.id} {a.title} {topic_words(a)}")
        body = self.joined("" if a.metadata.get("withheld") else a.body)
        return " ".join(part for part in [head] * TITLE_BOOST + [body] if part)


def population(a: Artifact) -> Population:
    """The population a document is scored within: commits apart from every other record."""
    return "commits" if a.type == "commit" else "records"


def topic_words(a: Artifact) -> str:
    """The item's declared labels, space-joined: its topic words, indexed with its title ('' when
    it has none or is withheld)."""
    labels = a.metadata.get("labels")
    if a.metadata.get("withheld") or not isinstance(labels, list):
        return ""
    return " ".join(label for label in labels if isinstance(label, str))


def indexed_text(a: Artifact) -> str:
    """What is indexed: the id, title and labels TITLE_BOOST times, then the body (none when
    withheld)."""
    body = "" if a.metadata.get("withheld") else a.body
    head = " ".join(part for part in (a.id, a.title, topic_words(a)) if part)
    return f"{head}\n" * TITLE_BOOST + body


def bm25_idf(doc_count: int, df: int) -> float:
    """How rare a term is: BM25's idf, log(1 + (N - df + ½) / (df + ½)); 0 when absent."""
    if df == 0:
        return 0.0
    return math.log(1 + (doc_count - df + 0.5) / (df + 0.5))


class KeywordSearcher(ABC):
    """An open index answering ranked queries: all units first, widened to any unit when few match."""

    doc_count: int

    def __enter__(self) -> KeywordSearcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def analyze(text: str) -> list[str]:
        """Stemmed, stopword-free terms of text, as the index holds them."""
        return analyze(text)

    def idf(self, term: str) -> float:
        """How rare a stemmed term is across the index (0 when absent)."""
        return bm25_idf(self.doc_count, self.document_frequency(term))

    def search(
        self, units: list[Alternatives], limit: int, *, any_unit: bool = False,
        enough: int | None = None, population: Population | None = None,
    ) -> list[tuple[str, float]]:
        """(id, score) best first: AND over units unless any_unit, widened to OR when AND finds
        fewer than `enough` (default: limit) rows; one population, or both (None)."""
        live = [[a for a in u if a] for u in units]
        live = [u for u in live if u]
        if not live:
            return []
        hits: list[tuple[str, float]] = []
        for every in ((False,) if any_unit else (True, False)):
            hits = self.query(live, limit, every=every, population=population)
            if len(hits) >= (limit if enough is None else enough):
                break
        return hits

    @abstractmethod
    def query(
        self, units: list[Alternatives], limit: int, *, every: bool,
        population: Population | None = None,
    ) -> list[tuple[str, float]]:
        """One ranked query: every unit (AND) or any unit (OR); in a unit, any spelling, all its
        terms; within one population, or both merged by score (None)."""

    @abstractmethod
    def phrase_scores(
        self, pairs: list[tuple[str, str]], ids: list[str], population: Population,
    ) -> dict[str, float]:
        """id -> BM25 of the query's adjacent term pairs, each an exact phrase (any of them), for
        the rows of `ids` in one population that hold one; scored on the population's statistics."""

    @abstractmethod
    def document_frequency(self, term: str) -> int:
        """How many indexed documents hold the term."""

    @abstractmethod
    def close(self) -> None:
        """Release the open index."""


def merged(parts: Iterable[list[tuple[str, float]]], limit: int) -> list[tuple[str, float]]:
    """Several populations' answers as one: by score, then id; the first `limit`."""
    rows = [hit for part in parts for hit in part]
    rows.sort(key=lambda hit: (-hit[1], hit[0]))
    return rows[:limit]


class IndexBackend(ABC):
    """Where one backend keeps its files and how it writes and opens them."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @abstractmethod
    def rebuild(self, docs: Iterable[Artifact], count: int) -> None:
        """Write a fresh index over every document."""

    @abstractmethod
    def update(self, changed: list[Artifact], existing: set[str]) -> None:
        """Replace the changed documents (those in `existing` were indexed before) in one write."""

    @abstractmethod
    def open(self) -> KeywordSearcher:
        """An open searcher at the index's current state."""

    @abstractmethod
    def present(self) -> bool:
        """Whether this backend's files are there at all."""

    def start_build(self) -> IndexBuild | None:
        """A rebuild fed one document at a time, in id order; None when the backend builds only
        from a whole list (whoosh, which clears its files first)."""
        return None


class IndexBuild(Protocol):
    """A fresh index being written from documents handed over one at a time."""

    def add(self, a: Artifact) -> None:
        """Take the next document (in id order)."""

    def finish(self) -> None:
        """Write what is held and put the new index in place of the old."""

    def abort(self) -> None:
        """Drop the build, leaving the old index as it was."""


def backend_for(name: Backend, directory: Path) -> IndexBackend:
    """The backend named in `[index] backend`."""
    if name == "whoosh":
        from revetly_core.store.keyword_whoosh import WhooshBackend

        return WhooshBackend(directory)
    from revetly_core.store.keyword_fts5 import Fts5Backend

    return Fts5Backend(directory)


class FileKeywordIndex:
    """The `KeywordIndex` protocol over one backend's files (FTS5 or whoosh): a rebuildable cache
    of the store, never the source of truth, rebuilt when torn.

    Both backends write atomically (a failed write leaves the index as it was) and the REVISION
    file is stamped only after a write committed; a revision that disagrees with the store's makes
    the next pass rebuild."""

    def __init__(self, directory: Path, backend: Backend = DEFAULT_BACKEND) -> None:
        self.directory = directory
        self.backend_name: Backend = backend
        self.backend = backend_for(backend, directory)
        self._shared: KeywordSearcher | None = None
        self._shared_revision: int | None = None

    def revision(self) -> int | None:
        """The corpus revision the index was last committed at, or None when absent or torn."""
        try:
            return int((self.directory / REVISION_FILE).read_text().strip())
        except (OSError, ValueError):
            return None

    def present(self) -> bool:
        """Whether the backend's files exist (a missing index is rebuilt by the next pass)."""
        return self.backend.present()

    def _set_revision(self, revision: int) -> None:
        tmp = self.directory / (REVISION_FILE + ".tmp")
        tmp.write_text(str(revision))
        tmp.replace(self.directory / REVISION_FILE)

    def rebuild(self, docs: Iterable[Artifact], count: int, revision: int) -> None:
        """Write a fresh index over every document (the full pass, or a torn index)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.backend.rebuild(docs, count)
        self._set_revision(revision)

    def start_rebuild(self) -> IndexBuild | None:
        """A rebuild fed one document at a time, in id order, by a caller already reading every
        document (a full pass's re-link); None when the backend cannot be fed (`start_build`)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.backend.start_build()

    def finish_rebuild(self, build: IndexBuild, revision: int) -> None:
        """Swap a fed rebuild in and stamp the revision (what ``rebuild`` ends with)."""
        build.finish()
        self._set_revision(revision)

    def update(self, changed: list[Artifact], existing: set[str], revision: int) -> None:
        """Apply one pass's changes in one write, then stamp the revision."""
        if changed:
            self.backend.update(changed, existing)
        self._set_revision(revision)

    def searcher(self) -> KeywordSearcher:
        """An open searcher for several queries in a row; close it (or use `with`)."""
        return self.backend.open()

    def shared_searcher(self) -> KeywordSearcher:
        """One searcher kept open across reads, reopened when the index revision moves."""
        revision = self.revision()
        if self._shared is None or self._shared_revision != revision:
            if self._shared is not None:
                self._shared.close()
            self._shared = self.backend.open()
            self._shared_revision = revision
        return self._shared


KeywordIndex = FileKeywordIndex
"""The name the engine and the pass construct the index by."""
