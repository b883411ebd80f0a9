"""The read pass: every source read, linked and stored as one new corpus revision."""

from __future__ import annotations

import dataclasses
import gc
import json
import logging
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from filelock import FileLock, Timeout

from revetly_core.config import Config
from revetly_core.connectors.base import (
    Connector,
    FileProblem,
    KnownArtifact,
    Progress,
    Removal,
    SourceBatch,
    StreamingConnector,
    no_progress,
)
from revetly_core.connectors.repository import RepositoryConnector
from revetly_core.embedding.sync import pass_vectors
from revetly_core.fsread import display_path
from revetly_core.ids import IdResolver, id_key
from revetly_core.inferred.sync import pass_inferred
from revetly_core.ingest.collector import fewer_collections
from revetly_core.ingest.linker import (
    Linker,
    Resolver,
    StoreResolver,
    StoreTitles,
    TitleIndex,
    contains_phrase,
    key_text,
    mention_phrases,
    phrase_text,
    tokens,
)
from revetly_core.ingest.statements import statement_rows
from revetly_core.instance.layout import InstancePaths
from revetly_core.isotime import iso_utc
from revetly_core.model import Artifact, Link
from revetly_core.refusal import Refusal
from revetly_core.store.db import Store
from revetly_core.store.keyword import IndexBuild, KeywordIndex
from revetly_core.store.known import StoredKnown
from revetly_core.store.queries_pass import COMPARED_COLUMNS
from revetly_core.store.rows import ARTIFACT_COLUMNS, artifact_row

if TYPE_CHECKING:  # typed dicts only: a pass never loads the answers package
    from revetly_core.answers.maintenance import PassSource, PassSummary

log = logging.getLogger("revetly.ingest")


def utc_now() -> str:
    """The ingest clock: now, as an ISO-8601 UTC string to the second."""
    return iso_utc(to_second=True)


@dataclass
class PassResult:
    """What one pass did: its outcome, revision and counts per source."""

    pass_id: int
    outcome: str
    full: bool
    revision: int
    started_at: str
    ended_at: str
    sources: list[PassSource] = field(default_factory=list)
    changed: dict[str, int] = field(default_factory=dict)
    problems: int = 0
    inferred: dict[str, Any] | None = None
    """The inferred step's counts on a full instance (absent from the payload on a lite one)."""

    def payload(self) -> PassSummary:
        out: PassSummary = {
            "pass_id": self.pass_id, "outcome": self.outcome, "full": self.full,
            "corpus_revision": self.revision, "started_at": self.started_at,
            "ended_at": self.ended_at, "changed": self.changed, "sources": self.sources,
            "problems": self.problems,
        }
        if self.inferred is not None:
            out["inferred"] = self.inferred
        return out


def connectors_for(root: Path, config: Config) -> list[Connector]:
    """The instance's declared sources, repository first, then each commits repository."""
    out: list[Connector] = [RepositoryConnector(root, config)]
    if config.connectors.commits:  # its reader loads only when a commits repository is declared
        from revetly_core.connectors.commits import CommitsConnector

        out.extend(CommitsConnector(root, c, config.default_project)
                   for c in config.connectors.commits)
    if declares_sources(config):  # their readers (YAML, the schema's models) load only then
        from revetly_core.connectors.sources import declared_sources

        out.extend(declared_sources(root, config))
    return out


def declares_sources(config: Config) -> bool:
    """Whether revetly.toml declares a source beyond the instance and its commits repositories."""
    section = config.connectors
    return any(getattr(section, f.name) for f in dataclasses.fields(section)
               if f.name not in ("repository", "commits"))


def run_pass(
    root: Path,
    config: Config,
    *,
    full: bool = False,
    progress: Progress = no_progress,
    clock: Callable[[], str] = utc_now,
    connectors: list[Connector] | None = None,
) -> PassResult:
    """Read every source into CONTEXT. One pass at a time; a failed pass changes nothing."""
    paths = InstancePaths(root)
    paths.state.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(paths.lock))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise Refusal(
            "busy", "another read pass is running on this instance",
            "wait for it to finish, then run `revetly sync` again",
        ) from None
    try:
        store = Store(paths.db)
        try:
            index = KeywordIndex(paths.index, config.index.backend)
            pace: AbstractContextManager[None] = (
                fewer_collections() if full or store.revision == 0 else nullcontext())
            with pace:
                return _run_locked(root, config, store, index, full=full, progress=progress,
                                   clock=clock, connectors=connectors or connectors_for(root, config))
        finally:
            store.close()
    finally:
        lock.release()


def _run_locked(
    root: Path, config: Config, store: Store, index: KeywordIndex, *, full: bool,
    progress: Progress, clock: Callable[[], str], connectors: list[Connector],
) -> PassResult:
    started = clock()
    index_torn = index.revision() != store.revision or not index.present()
    fingerprint = config_fingerprint(config)
    full = full or store.revision == 0 or store.get_meta("config_fingerprint") != fingerprint
    pass_id = store.start_pass(started, full)
    batches: list[tuple[Connector, SourceBatch, str, str]] = []
    failed: list[dict[str, Any]] = []
    reading: tuple[Connector, str] | None = None  # the source being read, for a failed pass
    feed = start_feed(index, full=full)
    try:
        with store.transaction():
            changes = PassChanges()
            for connector in connectors:
                src_started = clock()
                reading = (connector, src_started)
                try:
                    with store.savepoint():  # a source that fails leaves none of its writes
                        known = known_for(store, connector)
                        writer = SourceWriter(store, connector.source_id, known, full=full,
                                              now=started)
                        batch = read_source(connector, known,
                                            store.source_state(connector.source_id), writer,
                                            full=full, now=started, progress=progress)
                        batch.known = known
                except StoreWriteFailed as exc:  # the store failed, not the source
                    raise exc.error from None
                except Exception as exc:  # one unreadable source never stops the others
                    log.warning("source %s failed: %s", connector.source_id, exc)
                    failed.append({"source": connector.source_id, "project": connector.project,
                                   "started": src_started, "error": str(exc)})
                    reading = None
                    continue
                batches.append((connector, batch, src_started, clock()))
                reading = None
                writer.finish(batch)
                _apply_batch(store, batch, writer, changes, full=full)
            reading = None
            changed, prior_ids, counts = changes.changed, changes.prior_ids, changes.counts
            _state_links_and_statements(store, config, changes, full=full, now=started,
                                        progress=progress, feed=feed)
            revision = store.revision + (1 if (changed or full) else 0)
            store.set_meta("corpus_revision", str(revision))
            store.set_meta("config_fingerprint", fingerprint)
            ended = clock()
            source_rows = _record_sources(store, pass_id, batches, failed, counts, ended)
            outcome = "succeeded" if not failed else "degraded"
            totals = {k: sum(c.get(k, 0) for c in counts.values())
                      for k in ("added", "updated", "deleted")}
            store.end_pass(pass_id, ended, outcome, revision, totals)
    except Exception as exc:
        feed.drop()
        ended = clock()
        detail = f"{type(exc).__name__}: {exc}"
        log.debug("read pass failed: %s\n%s", detail, traceback.format_exc())
        store.end_pass(pass_id, ended, "failed", store.revision, {}, detail)
        for connector, batch, s, e in batches:
            store.ledger_entry(pass_id, connector.source_id, started=s, ended=e, outcome="failed",
                               counts={}, floor=batch.floor, gaps=batch.gaps,
                               partial=batch.partial, note=detail)
        if reading is not None:  # the store failed while this source was being read
            store.ledger_entry(pass_id, reading[0].source_id, started=reading[1], ended=ended,
                               outcome="failed", counts={}, floor=None, gaps=[], partial=False,
                               note=detail)
        raise Refusal(
            "pass-failed", f"the read pass failed and CONTEXT still serves revision "
            f"{store.revision}: {detail}", "fix the cause, then run `revetly sync` again",
        ) from exc
    except BaseException:  # interrupted: the fed index build goes with the pass
        feed.drop()
        raise
    batches.clear()  # the pass's artifacts are in the store now: free them before indexing
    if feed.build is not None:  # the re-link's scan fed a whole new index: swap it in
        try:
            index.finish_rebuild(feed.build, revision)
        except Exception as exc:  # the index is a cache: the next pass sees it torn, rebuilds it
            log.warning("keyword index update failed (rebuilt on the next pass): %s", exc)
        total = store.artifact_count()
        progress("index", total, total)
        gc.collect()  # a full pass's parsed artifacts go before the steps after it
    elif index_needs_writing(changed, prior_ids, full=full or index_torn):
        if full or len(changed) > WRITE_CHUNK:  # a big pass's parsed artifacts go first
            gc.collect()
        try:
            _update_index(store, index, changed, prior_ids, full=full or index_torn,
                          revision=revision, progress=progress)
        except Exception as exc:  # the index is a cache: the next pass sees it torn, rebuilds it
            log.warning("keyword index update failed (rebuilt on the next pass): %s", exc)
    pass_vectors(store, index.directory, config, changed | prior_ids, revision,
                 full=full or index_torn)
    inferred = pass_inferred(store, index.directory, config, changed | prior_ids, revision,
                             full=full)
    return PassResult(pass_id, outcome, full, revision, started, ended, source_rows, totals,
                      len(store.problems()), None if inferred is None else inferred.payload())


def known_for(store: Store, connector: Connector) -> dict[str, KnownArtifact]:
    """What the store holds of a connector's source: read whole, or row by row as looked up
    for a connector that asks (``looks_up_known``), so a pass that changed little reads little."""
    if getattr(connector, "looks_up_known", False):
        return StoredKnown(store, connector.source_id)
    return store.known(connector.source_id)


def index_needs_writing(changed: set[str], prior_ids: set[str], *, full: bool) -> bool:
    """Whether the keyword index has anything to take: a rebuild, or a document to change.
    A pass that changed nothing keeps the revision, so the index's stamp already agrees."""
    return full or bool(changed) or bool(prior_ids)


def unstorable(a: Artifact) -> str | None:
    """Why the store cannot hold one artifact (a value JSON or SQLite refuses), else None."""
    try:
        json.dumps(a.metadata, allow_nan=False, default=str)
        _check_row(artifact_row(a, ""))
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _check_row(row: tuple[Any, ...]) -> None:
    """Raise when a value of the row is one SQLite cannot hold (text that is not UTF-8, an
    integer past 64 bits)."""
    for value in row:
        if isinstance(value, str):
            value.encode("utf-8")
        elif isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise OverflowError(f"{value} is past SQLite's integers")


def storable_row(a: Artifact, ingested_at: str) -> tuple[Any, ...] | None:
    """The artifact's row, built once for both the check and the write; None when the store
    cannot hold it (then :func:`unstorable` says why, exactly as it would alone)."""
    try:
        row = artifact_row(a, ingested_at, strict=True)
        _check_row(row)
    except (ValueError, TypeError, OverflowError, RecursionError):
        return None
    return row


def name_unstorable(source: str, a: Artifact, reason: str, problems: list[FileProblem],
                    cleared: set[str]) -> None:
    """Name the file of an artifact the store cannot hold as its problem, instead of storing it."""
    path = display_path(a.source_path or a.id)
    problems.append(FileProblem(source, path, "unstorable",
                                f"a value cannot be stored ({reason}); the file is skipped",
                                a.blob))
    cleared.add(path)


def storable(source: str, artifacts: list[Artifact], problems: list[FileProblem],
             cleared: set[str]) -> list[Artifact]:
    """The artifacts the store can hold; each other one names its file as a problem instead,
    so one bad value fails its own file and never the pass."""
    kept: list[Artifact] = []
    for a in artifacts:
        reason = unstorable(a)
        if reason is None:
            kept.append(a)
        else:
            name_unstorable(source, a, reason, problems, cleared)
    return kept


def keep_storable(batch: SourceBatch) -> None:
    """Move each artifact the store cannot hold out of the batch and name its file instead."""
    batch.upserts = storable(batch.source, batch.upserts, batch.problems, batch.cleared_paths)


def redates(prior: KnownArtifact, removal: Removal) -> bool:
    """A removal git dates (a commit) replaces one the pass found first (a missing file)."""
    return removal.clock == "source-declared" and prior.deleted_clock != "source-declared"


def config_fingerprint(config: Config) -> str:
    """A digest of the settings and index format a pass reads with: a change makes it full."""
    import hashlib

    from revetly_core.store.keyword import INDEX_FORMAT

    text = f"{config.model_dump_json()}|index-format={INDEX_FORMAT}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


WRITE_CHUNK = 500
"""Artifacts a streaming read hands over before they are written together."""


@dataclass
class PassChanges:
    """What the pass's writes changed, across its sources: the ids whose record changed, those
    held before the pass (their index documents are replaced), counts per source, and the old
    mention phrases of what an incremental pass re-read."""

    changed: set[str] = field(default_factory=set)
    prior_ids: set[str] = field(default_factory=set)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    old_phrases: dict[str, set[str]] = field(default_factory=dict)


class StoreWriteFailed(Exception):
    """A store write failed inside a source's read: the pass fails, not that source."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def read_source(connector: Connector, known: dict[str, KnownArtifact], cursor: dict[str, Any],
                writer: SourceWriter, *, full: bool, now: str, progress: Progress) -> SourceBatch:
    """One source read; a streaming connector hands its artifacts to the writer as it goes."""
    if getattr(connector, "streams_upserts", False):
        return cast(StreamingConnector, connector).read(
            known, cursor, full=full, now=now, progress=progress, sink=writer.add)
    return connector.read(known, cursor, full=full, now=now, progress=progress)


class SourceWriter:
    """Writes one source's artifacts in chunks as its read hands them over, counting each as
    the pass reports it. What it changed joins the pass's changes only when the source's read
    succeeded (a failed source's writes are rolled back with it)."""

    def __init__(self, store: Store, source: str, known: dict[str, KnownArtifact], *,
                 full: bool, now: str) -> None:
        self.store, self.source, self.known, self.full, self.now = store, source, known, full, now
        self.compare = full
        self.stored = stored_rows(store, source) if full else {}
        self.counts = {"added": 0, "updated": 0, "deleted": 0, "unchanged": 0}
        self.ids: set[str] = set()
        self.changed: set[str] = set()
        self.prior_ids: set[str] = set()
        self.old_phrases: dict[str, set[str]] = {}
        self.problems: list[FileProblem] = []
        self.cleared: set[str] = set()
        self._pending: list[tuple[Artifact, tuple[Any, ...]]] = []

    def add(self, a: Artifact) -> bool:
        """The sink of a streaming read: hold the artifact (and its row), write when a chunk is
        full. False when the store cannot hold it (its file is named as a problem instead)."""
        row = storable_row(a, self.now)
        if row is None:
            name_unstorable(self.source, a, unstorable(a) or "a value cannot be stored",
                            self.problems, self.cleared)
            return False
        self._pending.append((a, row))
        if len(self._pending) >= WRITE_CHUNK:
            try:
                self._flush()
            except Exception as exc:
                raise StoreWriteFailed(exc) from exc
        return True

    def finish(self, batch: SourceBatch) -> None:
        """Write what is left (and the batch's own upserts), name the unstorable files in the
        batch, and add what this source changed to the pass's changes."""
        for a in batch.upserts:
            self.add_unstreamed(a)
        self._flush()
        batch.problems.extend(self.problems)
        batch.cleared_paths |= self.cleared

    def add_unstreamed(self, a: Artifact) -> None:
        """Hold one of the batch's own upserts for the last write, or name its file."""
        row = storable_row(a, self.now)
        if row is None:
            name_unstorable(self.source, a, unstorable(a) or "a value cannot be stored",
                            self.problems, self.cleared)
        else:
            self._pending.append((a, row))

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        kept = [a for a, _ in pending]
        for a in kept:
            self._count(a)
        self.store.upsert_rows(row for _, row in pending)
        if not self.full:  # a full pass re-links everything; no need to know the old titles
            first_seen = [a.id for a in kept if a.id not in self.ids]
            self.old_phrases.update(self.store.phrases_of(first_seen))
        self.store.replace_phrases(
            {a.id: [phrase_text(p) for p in mention_phrases(a)] for a in kept})
        self.ids.update(a.id for a in kept)

    def _count(self, a: Artifact) -> None:
        """Count one upsert: added, deleted, updated, or (a full pass's re-read of a record
        that did not change) unchanged."""
        c = self.counts
        prior = self.known.get(a.id)
        if prior is None:
            c["added" if not a.deleted else "deleted"] += 1
        elif a.deleted and not prior.deleted:
            c["deleted"] += 1
        elif not self.compare or record_changed(self.stored.get(a.id), a):
            c["updated"] += 1
        else:
            c["unchanged"] += 1
        if prior is not None:
            self.prior_ids.add(a.id)
        self.changed.add(a.id)


def times_compared(redated: list[str], changed: set[str], *, full: bool) -> list[str]:
    """The re-dated ids whose times are compared before and after they are filled: all of them
    in an incremental pass; in a full pass only those it has not changed already (a full pass
    re-links and re-indexes every changed id whole, so a moved time adds nothing to them)."""
    return [i for i in redated if i not in changed] if full else redated


def _apply_batch(store: Store, batch: SourceBatch, writer: SourceWriter, changes: PassChanges,
                 *, full: bool) -> None:
    """After a source's artifacts are written: its removals, history, re-dated times and
    problems, and its counts. A full pass re-reads every row and counts as updated only a row
    whose stored record differs; an incremental pass re-reads what moved, all updated."""
    known = batch.known
    changed, prior_ids = changes.changed, changes.prior_ids
    changed.update(writer.changed)
    prior_ids.update(writer.prior_ids)
    changes.old_phrases.update(writer.old_phrases)
    c = {"read": batch.read_count, **writer.counts, "problems": len(batch.problems)}
    for r in batch.removals:
        prior = known.get(r.artifact_id)
        if prior is not None and (not prior.deleted or redates(prior, r)):
            store.mark_deleted(r.artifact_id, r.deleted_at, r.clock, r.note)
            c["deleted"] += 0 if prior.deleted else 1
            changed.add(r.artifact_id)
            prior_ids.add(r.artifact_id)  # indexed before: its document is replaced
    if batch.history_complete:  # a whole re-walk (or rewritten history) replaces it
        store.clear_history(batch.source)
    store.add_history(batch.source, batch.history)
    # a file whose history moved (even an edit reverted before this pass) is re-dated
    redated = store.ids_at_paths(batch.source, sorted({e.artifact_id for e in batch.history}))
    compared = times_compared(redated, changed, full=full)
    times_before = store.times_of(compared)
    store.fill_times_from_history(batch.source, sorted(writer.ids | set(redated)))
    times_after = store.times_of(compared)
    redone = {i for i in compared if times_before.get(i) != times_after.get(i)}
    changed.update(redone)
    prior_ids.update(redone)  # held before this pass: their index documents are replaced
    store.replace_problems(batch.source, batch.cleared_paths, batch.problems, full=full)
    changes.counts[batch.source] = c
    release_written(batch)


def _state_links_and_statements(store: Store, config: Config, changes: PassChanges, *,
                                full: bool, now: str, progress: Progress,
                                feed: IndexFeed | None = None) -> None:
    """Re-link what the pass touched and re-state the statements of what changed, from one
    read of the artifacts (a full pass's read also feeds the new keyword index)."""
    changed = changes.changed
    if not changed and not full:  # nothing re-read or removed: no link or statement can move
        return
    stmt_rows: list[tuple[str, str, str, str | None]] = []
    fed = feed if full and feed is not None and feed.build is not None else None

    def state_statements(a: Artifact) -> None:
        if a.id in changed:
            stmt_rows.extend(statement_rows(a))
        if fed is not None:
            fed.add(a)

    _relink(store, config, changed, changes.old_phrases, full=full, now=now, progress=progress,
            visit=state_statements)
    store.replace_statements(sorted(changed), stmt_rows)


def start_feed(index: KeywordIndex, *, full: bool) -> IndexFeed:
    """A full pass's index build, fed by its re-link (an empty feed for an incremental pass, a
    backend that cannot be fed, or a build that cannot start: then the index is written after
    the commit, as before)."""
    if not full:
        return IndexFeed(None)
    try:
        return IndexFeed(index.start_rebuild())
    except Exception as exc:
        log.warning("keyword index build could not start (written after the pass): %s", exc)
        return IndexFeed(None)


class IndexFeed:
    """A full pass's new keyword index, fed by the re-link's one read of every artifact (in id
    order, as the index reads them) instead of a second read after the commit. The index is a
    cache: a build that fails is dropped with a warning and the pass goes on; the next pass
    finds the index torn and rebuilds it."""

    def __init__(self, build: IndexBuild | None) -> None:
        self.build = build

    def add(self, a: Artifact) -> None:
        """Hand one artifact to the build; a failure drops the build, never the pass."""
        if self.build is None:
            return
        try:
            self.build.add(a)
        except Exception as exc:
            log.warning("keyword index build failed (rebuilt on the next pass): %s", exc)
            self.drop()

    def drop(self) -> None:
        """Abandon the build (the pass failed, or the build did): the old index stays."""
        build, self.build = self.build, None
        if build is not None:
            try:
                build.abort()
            except Exception as exc:
                log.warning("keyword index build could not be dropped cleanly: %s", exc)


def release_written(batch: SourceBatch) -> None:
    """Drop a batch's parsed artifacts and history once the store holds them: the rest of the
    pass reads them back from the store, so a big pass never holds every body twice."""
    batch.upserts = []
    batch.history = []


_COMPARED = COMPARED_COLUMNS
_FILLED_LATER = ("created_at", "source_updated_at")


def stored_rows(store: Store, source: str) -> dict[str, tuple[Any, ...]]:
    """id -> the stored record of each artifact of one source (every column but the ingest
    time), read in one scan, for a full pass's change counting."""
    return store.compared_records(source)


def record_changed(stored: tuple[Any, ...] | None, a: Artifact) -> bool:
    """Whether re-reading ``a`` changes its stored record (a full pass re-reads every row, and
    only the rows that differ count as updated)."""
    if stored is None:
        return True
    fresh = dict(zip(ARTIFACT_COLUMNS, artifact_row(a, ""), strict=True))
    held = dict(zip(_COMPARED, stored, strict=True))
    for col in _FILLED_LATER:  # a time the source leaves out is filled from git after the upsert
        if fresh[col] is None:
            fresh[col] = held[col]
    return any(fresh[c] != held[c] for c in _COMPARED)


def _artifacts_by_id(store: Store, ids: list[str]) -> Iterator[Artifact]:
    """The stored artifacts with these ids (sorted ids: in id order)."""
    return store.artifacts_by_ids(ids)


IN_MEMORY_RELINK = 1_000
"""An incremental pass that changed more artifacts than this loads every id and title once
instead of looking each body's words up in the store."""


def _relink(
    store: Store, config: Config, changed: set[str], old_phrases: dict[str, set[str]],
    *, full: bool, now: str, progress: Progress,
    visit: Callable[[Artifact], None] = lambda a: None,
) -> None:
    """Re-state the links of every artifact whose links could have changed (each artifact read
    is also handed to ``visit``: the pass states statements from the same read)."""
    if full or len(changed) > IN_MEMORY_RELINK:
        resolver: Resolver = IdResolver(store.all_ids())
        index = TitleIndex()
        for owner, spelled in store.all_phrases():
            index.add(owner, [tuple(spelled.split(" "))])
        linker = Linker(config.ids.families, resolver, index, aliases=config.id_aliases,
                        dotted=config.dotted_families)
    else:
        linker = Linker(config.ids.families, StoreResolver(store), StoreTitles(store),
                        aliases=config.id_aliases, dotted=config.dotted_families)
    if full:
        affected = set(store.all_ids())
    else:
        affected = set(changed)
        phrases_now = store.phrases_of(sorted(changed))
        # Titles that appeared, changed or vanished: bodies naming them, old or new, re-link.
        moved: set[str] = set()
        for aid in changed:
            before = old_phrases.get(aid, set())
            after = phrases_now.get(aid, set())
            if before != after:
                moved |= before ^ after
                affected.update(store.title_mentioners(aid))
        for text in sorted(moved):
            phrase = tuple(text.split(" "))
            probe = max(phrase, key=len)
            for aid, body in store.bodies_containing(probe):
                if aid not in affected and contains_phrase(tokens(body), phrase):
                    affected.add(aid)
        # An artifact that spells a changed id another way (or named it before it was held)
        # re-links whole, so its links read as a full pass would state them.
        for aid in changed:
            key = id_key(aid)
            if key is not None:
                affected.update(store.other_spellers(key_text(key), aid))

    ids = sorted(affected)
    new_links: list[Link] = []
    read = store.all_artifacts() if full else _artifacts_by_id(store, ids)
    for i, a in enumerate(read):
        if i % 2_000 == 0:
            progress("link", i, len(ids))
        new_links.extend(linker.links_of(a))
        visit(a)
    progress("link", len(ids), len(ids))
    fresh = {(link.src, link.dst, link.relation, link.method) for link in new_links}
    stale: list[tuple[str, str, str, str]] = []
    if full:
        stale = [k for k in store.live_link_keys() if k not in fresh]
    else:
        stale = [k for k in store.live_link_keys_from(ids) if k not in fresh]
    store.retire_links(stale, now)
    store.state_links(new_links, now)


def _record_sources(
    store: Store, pass_id: int, batches: list[tuple[Connector, SourceBatch, str, str]],
    failed: list[dict[str, Any]], counts: dict[str, dict[str, int]], ended: str,
) -> list[PassSource]:
    rows: list[PassSource] = []
    for connector, batch, s, e in batches:
        store.record_source(batch.source, connector.project, cursor=batch.cursor, at=e,
                            outcome="succeeded", floor=batch.floor, gaps=batch.gaps,
                            partial=batch.partial)
        store.ledger_entry(pass_id, batch.source, started=s, ended=e, outcome="succeeded",
                           counts=counts.get(batch.source, {}), floor=batch.floor,
                           gaps=batch.gaps, partial=batch.partial, note=None)
        rows.append({"source": batch.source, "outcome": "succeeded",
                     "counts": counts.get(batch.source, {})})
    for f in failed:
        store.record_source(f["source"], f["project"], cursor=None, at=ended, outcome="failed",
                            floor=None, gaps=[], partial=False)
        store.ledger_entry(pass_id, f["source"], started=f["started"], ended=ended,
                           outcome="failed", counts={}, floor=None, gaps=[], partial=False,
                           note=f["error"])
        rows.append({"source": f["source"], "outcome": "failed", "error": f["error"]})
    return sorted(rows, key=lambda r: str(r["source"]))


def _update_index(
    store: Store, index: KeywordIndex, changed: set[str], prior_ids: set[str], *, full: bool, revision: int,
    progress: Progress,
) -> None:
    """Bring the keyword index to the store's revision: rebuilt on a full pass, else patched."""
    if full:
        total = store.artifact_count()
        progress("index", 0, total)
        index.rebuild(store.index_documents(), total, revision)
        progress("index", total, total)
        return
    docs = list(_artifacts_by_id(store, sorted(changed)))
    index.update(docs, prior_ids | (changed - {d.id for d in docs}), revision)
