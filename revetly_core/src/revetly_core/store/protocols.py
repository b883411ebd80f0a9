"""The seams above the store: what reads, scope and the pass may ask of CONTEXT and the index.

`Store` and `KeywordIndex` are protocols; `store/db.py` (SQLite) and `store/keyword.py` (FTS5
or whoosh files) implement them. Reads and scope type their parameters with these, so another
store (PostgreSQL, say) implements the same methods and no read changes. No method takes SQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from revetly_core.connectors.base import FileProblem, KnownArtifact
from revetly_core.model import Artifact, HistoryEntry, Link
from revetly_core.store.keyword import Alternatives, Population
from revetly_core.store.queries_artifact import HistoryRow, LinkRow, LinkState, NamingCommit
from revetly_core.store.queries_backlog import ItemFilter
from revetly_core.store.queries_operate import LinkAudit
from revetly_core.store.queries_pass import LinkKey
from revetly_core.store.queries_scope import DatedRow, DeliveryRow, HistoryChange, ItemRow
from revetly_core.store.queries_search import (
    FactLink,
    HitRow,
    LinkTally,
    NeighbourLink,
    RetiredLink,
    Reviser,
    Statement,
)


class Row(Protocol):
    """A stored row read by column name (sqlite3.Row is one)."""

    def __getitem__(self, key: str, /) -> Any:
        ...

    def keys(self) -> list[str]:
        ...


class SearchReads(Protocol):
    """The links and statements search_context reads around its hits."""

    def hit_rows(self, ids: list[str]) -> dict[str, HitRow]:
        """id -> its HitRow, for those of ids the store holds (one query per batch)."""
        ...

    def bodies_of(self, ids: list[str]) -> dict[str, str]:
        """id -> its body, for those of ids the store holds."""
        ...

    def superseders_of(self, ids: list[str]) -> dict[str, list[str]]:
        """id -> the live, undeleted notes with a supersedes link to it, sorted (ids none
        supersedes left out)."""
        ...

    def revising_notes_of(self, ids: list[str]) -> dict[str, list[tuple[str, str, str | None]]]:
        """id -> (note, link detail JSON, note's created_at) of the live undeleted notes revising it."""
        ...

    def neighbour_links_of(self, ids: list[str]) -> dict[str, list[NeighbourLink]]:
        """id -> the live cites / references / mentions links into or out of it, for each of ids."""
        ...

    def declared_link_tally(self, ids: list[str],
                            methods: tuple[str, ...] = ("declared",)) -> list[LinkTally]:
        """Per (dst, relation): the live links of the methods from another artifact into one of
        ids (declared ones unless told)."""
        ...

    def stated_names_from(self, ids: list[str]) -> list[tuple[str, str]]:
        """(src, dst) of the live explicit-ref or supersedes links out of ids."""
        ...

    def retired_declared_links(self, ids: list[str]) -> list[RetiredLink]:
        """Retired declared parent/delivers/supersedes/revises links touching ids, sorted by
(src, dst, relation)."""
        ...

    def declared_facts(self, ids: list[str]) -> list[FactLink]:
        """Live declared parent/delivers/supersedes/revises links touching ids, with titles."""
        ...

    def statements_of(self, ids: list[str]) -> list[Statement]:
        """The statements extracted from ids."""
        ...

    def superseded_among(self, ids: list[str]) -> set[str]:
        """Those of ids a live supersedes link points at."""
        ...

    def revises_within(self, ids: list[str]) -> list[tuple[str, str]]:
        """(note, item) of the live revises links with both ends among ids."""
        ...

    def live_revisers(self, ids: list[str]) -> list[Reviser]:
        """Live, undeleted notes revising any of ids."""
        ...


class ArtifactReads(Protocol):
    """What get_artifact reads: naming commits, links, history, children, marks."""

    def commit_ids_from(self, prefix: str, limit: int) -> list[str]:
        """Commit ids starting with a lowercase hex prefix, sorted, at most ``limit``."""
        ...

    def naming_commits(self, artifact_id: str) -> list[NamingCommit]:
        """Live commits linking to an artifact, newest first (a commit once per link)."""
        ...

    def ids_of_family(self, family: str) -> list[str]:
        """Every held id spelled ``FAMILY-…`` (SQLite's LIKE: ASCII case-insensitive)."""
        ...

    def history_count(self, source: str, path: str) -> int:
        """How many history entries the read pass recorded for one file."""
        ...

    def history_of(self, source: str, path: str) -> list[HistoryRow]:
        """One file's recorded history (in the store's order; the read sorts it)."""
        ...

    def deleted_among(self, ids: list[str]) -> set[str]:
        """Those of ids held and deleted."""
        ...

    def held_among(self, ids: list[str]) -> set[str]:
        """Those of ids held at all (deleted or not)."""
        ...

    def links_of(self, artifact_id: str, state: LinkState) -> list[LinkRow]:
        """Its links out, then its links in (self-links once), live, retired or both."""
        ...

    def live_superseders(self, artifact_id: str) -> list[str]:
        """Live, undeleted notes with a supersedes link to the artifact, sorted."""
        ...

    def revising_notes(self, artifact_id: str) -> list[tuple[str, str, str | None]]:
        """(note, link detail JSON, note's created_at) of live undeleted notes revising it."""
        ...

    def declared_targets(self, artifact_id: str) -> list[tuple[str, str]]:
        """(relation, dst) of an artifact's live declared links, sorted."""
        ...

    def children_of(self, parents: list[str], projects: tuple[str, ...]) -> list[tuple[str, Artifact]]:
        """(parent, child) for the live declared children of parents within the projects; each
child compact (its body read as '')."""
        ...


class BacklogReads(Protocol):
    """What list_backlog reads: the matching items' keys, then one page."""

    def matching_items(self, f: ItemFilter) -> list[tuple[str, str]]:
        """(id, type) of every artifact the filter matches, in no order."""
        ...

    def compact_artifacts(self, ids: list[str]) -> dict[str, Artifact]:
        """id -> the held artifact, its body read as '' (what a compact row serves)."""
        ...

    def outside_head(self, projects: tuple[str, ...], limit: int) -> tuple[int, list[str]]:
        """(how many, the first ``limit`` ids; ``limit`` at least 1) of the live items of the
        projects no type map covered, in id order: family, number (GH-2 before GH-10), id."""
        ...

    def outside_counts(self) -> list[tuple[str, str, str, int]]:
        """(source, project, why, how many) of the live items no type map covered."""
        ...


class OperateReads(Protocol):
    """Whole-store counts for health, check, doctor and audit-links."""

    def unparsed_criteria_by_source(self) -> dict[str, int]:
        """source -> live artifacts with a criteria heading and no criterion under it."""
        ...

    def ids_and_types(self) -> list[tuple[str, str]]:
        """(id, type) of every held artifact, deleted ones too."""
        ...

    def artifact_counts(self) -> list[tuple[str, str, bool, int]]:
        """(source, type, deleted, how many) over the artifacts table."""
        ...

    def problem_counts(self) -> list[tuple[str, str, str | None, int]]:
        """(source, code, severity, how many) over the problems table."""
        ...

    def link_audit(self, project: str | None) -> LinkAudit:
        """The link counts of one project's artifacts (or of all when None)."""
        ...

    def artifact_count(self) -> int:
        """How many rows the artifacts table holds (deleted ones too)."""
        ...


class PassReads(Protocol):
    """What the read pass reads back of what it stored before."""

    def compared_records(self, source: str) -> dict[str, tuple[Any, ...]]:
        """id -> the stored record (COMPARED_COLUMNS) of each artifact of one source, one scan."""
        ...

    def known_of_id(self, source: str, artifact_id: str) -> KnownArtifact | None:
        """What the store holds of one artifact of a source (by its id), or None."""
        ...

    def known_at_path(self, source: str, path: str) -> list[KnownArtifact]:
        """Every artifact of a source read from one path (deleted ones too), in id order."""
        ...

    def known_with_key(self, source: str, key_text: str) -> list[KnownArtifact]:
        """Every artifact of a source whose id has this key (any spelling), in id order."""
        ...

    def all_phrases(self) -> list[tuple[str, str]]:
        """(artifact id, phrase) of every mention phrase held."""
        ...

    def title_mentioners(self, artifact_id: str) -> list[str]:
        """Artifacts with a live title-mention link to this one."""
        ...

    def bodies_containing(self, probe: str) -> list[tuple[str, str]]:
        """(id, body) of the non-commit artifacts whose lowercased body contains probe
(Python's lower(): SQLite's folds ASCII only)."""
        ...

    def other_spellers(self, key_text: str, artifact_id: str) -> list[str]:
        """Artifacts with a live link naming the id key but not this exact id."""
        ...

    def live_link_keys(self) -> list[LinkKey]:
        """The key of every live link."""
        ...

    def live_link_keys_from(self, ids: list[str]) -> list[LinkKey]:
        """The key of every live link out of ids."""
        ...

    def artifacts_by_ids(self, ids: list[str]) -> Iterator[Artifact]:
        """The held artifacts with these ids, batch by batch (each batch in id order)."""
        ...

    def all_artifacts(self) -> Iterator[Artifact]:
        """Every held artifact in id order, from one scan (what a full pass re-links)."""
        ...

    def index_documents(self) -> Iterator[Artifact]:
        """Every held artifact as the keyword index reads it, in id order: id, type, project,
        title, body and the withheld flag (the other fields are left empty)."""
        ...


class ScopeReads(Protocol):
    """What the scope questions read: artifacts by id, deltas, drift, deliveries."""

    def held_artifacts(self, ids: list[str]) -> dict[str, Artifact]:
        """The held artifacts among ids, whole, in id order."""
        ...

    def statement_texts(self, ids: list[str]) -> dict[str, str]:
        """artifact id -> the first (by statement id) statement extracted from it."""
        ...

    def delivering_records(self, shas: list[str]) -> list[tuple[str, str, str]]:
        """(record, sha, story) for live records implemented by the commits, by record."""
        ...

    def dated_rows_of(self, ids: list[str]) -> dict[str, DatedRow]:
        """id -> DatedRow of the non-commit artifacts among sorted ids, in id order."""
        ...

    def dated_rows_in(self, project: str) -> dict[str, DatedRow]:
        """id -> DatedRow of a project's non-commit artifacts."""
        ...

    def history_paths(self) -> set[tuple[str, str]]:
        """(source, path) of every file with recorded history."""
        ...

    def history_between(self, since: str | None, before: str | None) -> list[HistoryChange]:
        """Recorded changes with ``since <= at < before`` as text (either bound may be open)."""
        ...

    def commit_times(self, projects: tuple[str, ...], clock: str) -> list[tuple[str, str | None]]:
        """(source, time) of the live commits of the projects, on the source or ingest clock."""
        ...

    def unheld_targets(self) -> list[tuple[str, str]]:
        """(src, dst) of live links, implemented_by aside, to ids never ingested."""
        ...

    def live_items_of(self, ids: list[str]) -> list[ItemRow]:
        """The live work items among sorted ids, in id order."""
        ...

    def live_items_in(self, project: str) -> list[ItemRow]:
        """A project's live work items, in id order."""
        ...

    def live_deliveries(self) -> list[DeliveryRow]:
        """Every live delivery record with the item it delivers, by record then item."""
        ...

    def newest_commits_naming(self, artifact_id: str, limit: int) -> list[Artifact]:
        """The live commits linked to an artifact, newest first, at most limit."""
        ...

    def commits_linked_to(self, artifact_id: str) -> list[str]:
        """Commits with a live link to an artifact, sorted, once each."""
        ...


class RecordStore(Protocol):
    """The records themselves: artifacts, links, statements, history, problems, the ledger."""

    @property
    def path(self) -> Path:
        """The store's file; its folder is the instance's state folder."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...

    def __enter__(self) -> Store:
        ...

    def __exit__(self, *exc: object) -> None:
        ...

    def schema_version(self) -> int | None:
        ...

    def get_meta(self, key: str) -> str | None:
        ...

    def set_meta(self, key: str, value: str) -> None:
        ...

    @property
    def revision(self) -> int:
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """One atomic write: everything inside lands together or not at all."""
        ...

    def savepoint(self) -> AbstractContextManager[None]:
        """A part of the open transaction that is undone alone when it raises."""
        ...

    def known(self, source: str) -> dict[str, KnownArtifact]:
        """What the store holds of one source, for change detection."""
        ...

    def upsert_artifacts(self, artifacts: Iterable[Artifact], ingested_at: str) -> None:
        ...

    def upsert_rows(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Insert or replace artifacts already laid out as rows (``artifact_row``)."""
        ...

    def replace_phrases(self, rows: dict[str, list[str]]) -> None:
        """The mention phrases (a title or alias, as space-joined tokens) of these artifacts."""
        ...

    def phrases_of(self, ids: list[str]) -> dict[str, set[str]]:
        """artifact id -> the mention phrases the store holds for it."""
        ...

    def phrase_lengths(self) -> list[int]:
        ...

    def artifacts_with_phrases(self, phrases: list[str]) -> set[str]:
        """Ids of artifacts whose title or alias is one of these phrases."""
        ...

    def ids_at_paths(self, source: str, paths: list[str]) -> list[str]:
        """Ids of the source's artifacts read from these paths."""
        ...

    def times_of(self, ids: list[str]) -> dict[str, tuple[str | None, str | None]]:
        """id -> (created_at, source_updated_at) as the store holds them now."""
        ...

    def ids_for_keys(self, keys: list[str]) -> dict[str, str]:
        """id key text -> the lowest held id spelled with that key."""
        ...

    def mark_deleted(self, artifact_id: str, at: str | None, clock: str, note: str | None) -> None:
        ...

    def get(self, artifact_id: str) -> Artifact | None:
        ...

    def artifacts(self) -> Iterator[Artifact]:
        ...

    def all_ids(self) -> list[str]:
        ...

    def fill_times_from_history(self, source: str, ids: Iterable[str]) -> None:
        """Source times from git where the frontmatter declares none: first and last change."""
        ...

    def retire_links_from(self, srcs: Iterable[str], at: str) -> None:
        """Retire every live outgoing link of these artifacts (they are about to be re-stated)."""
        ...

    def retire_links(self, links: Iterable[tuple[str, str, str, str]], at: str) -> None:
        ...

    def state_links(self, links: Iterable[Link], at: str) -> None:
        """Insert or revive links; a link already live keeps the time it was first stated."""
        ...

    def replace_statements(
        self, artifact_ids: Iterable[str], rows: Iterable[tuple[str, str, str, str | None]]
    ) -> None:
        ...

    def add_history(self, source: str, entries: Iterable[HistoryEntry]) -> None:
        ...

    def clear_history(self, source: str) -> None:
        ...

    def replace_problems(
        self, source: str, cleared: Iterable[str], problems: Iterable[FileProblem], *, full: bool
    ) -> None:
        ...

    def problems(self) -> Sequence[Row]:
        ...

    def source_state(self, source: str) -> dict[str, Any]:
        ...

    def record_source(
        self, source: str, project: str, *, cursor: dict[str, Any] | None, at: str, outcome: str,
        floor: str | None, gaps: list[str], partial: bool
    ) -> None:
        ...

    def sources(self) -> Sequence[Row]:
        ...

    def start_pass(self, at: str, full: bool) -> int:
        ...

    def end_pass(
        self, pass_id: int, at: str, outcome: str, revision: int | None, counts: dict[str, Any],
        error: str | None = None
    ) -> None:
        ...

    def ledger_entry(
        self, pass_id: int, source: str, *, started: str, ended: str, outcome: str,
        counts: dict[str, Any], floor: str | None, gaps: list[str], partial: bool,
        note: str | None
    ) -> None:
        ...

    def last_pass(self) -> Row | None:
        ...

    def ledger_for(self, pass_id: int) -> Sequence[Row]:
        ...

    def last_ledger(self, source: str) -> Row | None:
        ...

    def counts(self) -> dict[str, Any]:
        """Live artifacts by kind, type and status; deleted and withheld counted apart."""
        ...

    def snapshot(self) -> dict[str, Any]:
        """The corpus as data, without ingest-clock fields: equal for equal sources."""
        ...


class Store(RecordStore, SearchReads, ArtifactReads, BacklogReads, OperateReads, PassReads,
            ScopeReads, Protocol):
    """One instance's CONTEXT store, every read and write the engine makes of it."""


class KeywordSearcher(Protocol):
    """An open keyword index answering ranked queries (see store/keyword.py)."""

    doc_count: int

    def __enter__(self) -> KeywordSearcher:
        ...

    def __exit__(self, *exc: object) -> None:
        ...

    def analyze(self, text: str) -> list[str]:
        """Stemmed, stopword-free terms of text, as the index holds them."""
        ...

    def idf(self, term: str) -> float:
        """How rare a stemmed term is across the index (0 when absent)."""
        ...

    def search(
        self, units: list[Alternatives], limit: int, *, any_unit: bool = False,
        enough: int | None = None, population: Population | None = None,
    ) -> list[tuple[str, float]]:
        """(id, score) best first: AND over units, widened to OR when AND finds too few."""
        ...

    def phrase_scores(
        self, pairs: list[tuple[str, str]], ids: list[str], population: Population,
    ) -> dict[str, float]:
        """id -> BM25 of the adjacent term pairs as exact phrases, for those of ids holding one."""
        ...

    def close(self) -> None:
        """Release the open index."""
        ...


class KeywordIndex(Protocol):
    """The keyword index over the store: a rebuildable cache stamped with a corpus revision."""

    directory: Path
    """The folder holding the index files (the semantic leg keeps its vectors beside them)."""

    @property
    def backend_name(self) -> str:
        """Which backend holds it (`[index] backend`)."""
        ...

    def revision(self) -> int | None:
        """The corpus revision the index was last committed at, or None when absent or torn."""
        ...

    def present(self) -> bool:
        """Whether the index's files exist."""
        ...

    def rebuild(self, docs: Iterable[Artifact], count: int, revision: int) -> None:
        """Write a fresh index over every document."""
        ...

    def update(self, changed: list[Artifact], existing: set[str], revision: int) -> None:
        """Apply one pass's changes in one write, then stamp the revision."""
        ...

    def searcher(self) -> KeywordSearcher:
        """An open searcher for several queries in a row."""
        ...

    def shared_searcher(self) -> KeywordSearcher:
        """One searcher kept open across reads, reopened when the revision moves."""
        ...
