"""The engine facade: one object per instance whose methods are the tools and commands."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from revetly_core.config import Config, load_config
from revetly_core.instance.layout import InstancePaths, locate_instance
from revetly_core.progress import Progress, no_progress
from revetly_core.store.db import Store
from revetly_core.store.graph import GraphCache
from revetly_core.store.kept import KeptReaders
from revetly_core.store.keyword import KeywordIndex

if TYPE_CHECKING:
    import networkx as nx

    from revetly_core.answers import (
        ArtifactAnswer,
        AuditLinksAnswer,
        AuthoringAnswer,
        BackfillAnswer,
        BackfillPlan,
        BacklogAnswer,
        CheckAnswer,
        ConversationAnswer,
        DoctorAnswer,
        GateAnswer,
        HealthAnswer,
        InitAnswer,
        ManualPage,
        ManualTopics,
        MigrateAnswer,
        PassSummary,
        ReviewList,
        ReviewPage,
        ReviewState,
        ScopeAnswer,
        SearchAnswer,
        StatusAnswer,
        WatchEvent,
        WatchSummary,
    )
    from revetly_core.scope.context import ScopeContext
    from revetly_core.scope.path_history import PathHistoryCache
    from revetly_core.store.inferred import InferredStore
    from revetly_core.writes.capture import CaptureMode
    from revetly_core.writes.context import WriteContext
    from revetly_core.writes.gate import GateChoice
    from revetly_core.writes.principal import Principal


class Engine:
    """An opened instance: its configuration, paths and CONTEXT handles."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.paths = InstancePaths(root)
        self.graphs = GraphCache()
        self.index = KeywordIndex(self.paths.index, config.index.backend)
        self._write_context: WriteContext | None = None
        self._path_cache: PathHistoryCache | None = None
        self._search_stores = KeptReaders(self.paths.db)

    @classmethod
    def open(cls, instance: str | Path | None = None) -> Engine:
        """Find the instance (--instance, REVETLY_INSTANCE, or upward from cwd) and load it."""
        root = locate_instance(instance)
        return cls(root, load_config(root))

    @staticmethod
    def init(
        path: str | Path, commits: list[str] | None = None,
        source: tuple[str, str] | None = None, *, write_hosts: bool = False,
        auth_issuer: str | None = None,
    ) -> InitAnswer:
        """Scaffold a new instance; ``source`` = (kind, repo) reads that repository in place,
        ``write_hosts`` also writes the agent-host files into that repository, and
        ``auth_issuer`` declares a served endpoint checking that issuer's tokens."""
        if source is not None:
            from revetly_core.instance.scaffold_sources import scaffold_from_source

            if commits:
                from revetly_core.refusal import Refusal

                raise Refusal("invalid-argument", "--from already declares the repository's "
                              "history as a commits source", "drop --commits, or add more "
                              "code repositories to revetly.toml afterwards")
            return scaffold_from_source(Path(path), source[0], source[1],
                                        write_hosts=write_hosts, auth_issuer=auth_issuer)
        if write_hosts:
            from revetly_core.refusal import Refusal

            raise Refusal("invalid-argument", "--write-hosts writes into the repository --from "
                          "names, and no --from was given", "add --from KIND REPO, or drop "
                          "--write-hosts (the instance gets its own host files either way)")
        from revetly_core.instance.scaffold import scaffold_instance

        return scaffold_instance(Path(path), commits, auth_issuer=auth_issuer)

    def _inferred(self) -> InferredStore | None:
        """The inferred projection on a full instance; None on a lite one."""
        from revetly_core.inferred.instance import is_full

        if not is_full(self.config):
            return None
        from revetly_core.store.inferred import InferredStore

        return InferredStore(self.paths.index)

    def _store(self) -> Store:
        return Store(self.paths.db, readonly=True)

    def sync(self, *, full: bool = False, progress: Progress = no_progress) -> PassSummary:
        """Run a read pass and return what it did."""
        from revetly_core.ingest.readpass import run_pass
        from revetly_core.writes.journal import recover_writes

        recovered = recover_writes(self.root, self.paths.state)  # an interrupted write first
        payload = run_pass(self.root, self.config, full=full, progress=progress).payload()
        if recovered:
            payload["recovered"] = recovered
        return payload

    def context_health(self, capture: str | None = None) -> HealthAnswer:
        """Whether the last pass landed, per source, and what CONTEXT holds (+ one capture)."""
        from revetly_core.reads.health import context_health

        with self._store() as store:
            payload = context_health(self.config, store, self.index)
        if capture is not None:
            from revetly_core.writes.capture import capture_state

            payload["capture"] = capture_state(self.root, self.paths.state, self.paths.db, capture)
        return payload

    def corpus_revision(self) -> tuple[int, int | None]:
        """The corpus revision CONTEXT serves and the id of its last finished pass (None before
        any): what a cache of reads is valid for. Two reads on this thread's kept reader."""
        store = self._search_stores.get()
        last = store.last_pass()
        return store.revision, None if last is None else int(last["pass_id"])

    def check(self, repair: bool = False) -> CheckAnswer:
        """Every file that breaks the schema and every declared link CONTEXT does not hold."""
        from revetly_core.reads.check import check_instance

        if repair:
            return self.check_repair()
        from revetly_core.writes.checks import add_write_problems

        if not self.paths.db.exists():
            return add_write_problems(check_instance(self.root, self.config, None), self.root,
                                      self.config)
        with self._store() as store:
            return add_write_problems(check_instance(self.root, self.config, store), self.root,
                                      self.config)

    def search_context(
        self,
        query: str,
        limit: int = 10,
        project: str | None = None,
        deleted: str | None = None,
        inferred: str | None = None,
    ) -> SearchAnswer:
        """Keyword search over every artifact: artifacts, passages and facts, ranked and fitted."""
        from revetly_core.reads.search import search_context

        store = self._search_stores.get()  # kept open per thread: a search's page cache stays warm
        return search_context(self.config, store, self.index, query,
                              limit=limit, project=project, deleted=deleted,
                              inferred=inferred)

    def get_artifact(
        self,
        artifact_id: str,
        *,
        project: str | None = None,
        history_after: str | None = None,
        depth: int | str | None = None,
        deleted: str | None = None,
        inferred: str | None = None,
    ) -> ArtifactAnswer:
        """One artifact by id: the brief, the full record (history_after) or the branch (depth);
        inferred='all' serves a full instance's inferred half whole."""
        from revetly_core.reads.artifact import get_artifact

        with self._store() as store:
            return get_artifact(self.config, store, artifact_id, project=project,
                                history_after=history_after, depth=depth, deleted=deleted,
                                inferred=inferred, projection=self._inferred())

    def list_backlog(
        self,
        *,
        status: str | None = None,
        provenance: str | None = None,
        pbi_type: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        project: str | None = None,
        deleted: str | None = None,
    ) -> BacklogAnswer:
        """The project's work items as compact rows, paged by a forward-only cursor."""
        from revetly_core.reads.backlog import list_backlog

        with self._store() as store:
            return list_backlog(self.config, store, status=status, provenance=provenance,
                                pbi_type=pbi_type, limit=limit, cursor=cursor, project=project,
                                deleted=deleted)

    # ---- writes and the review record: add write methods below this line ----

    capture_mode: CaptureMode = "thread"
    """How a write's read pass runs: 'thread' (servers), 'process' (one-shot CLI), 'none'."""

    def _writes(self) -> WriteContext:
        """The write side of this engine, made once per capture mode (its capture runner
        outlives each call)."""
        ctx = self._write_context
        if ctx is None or ctx.captures.mode != self.capture_mode:
            from revetly_core.writes.capture import CaptureRunner
            from revetly_core.writes.context import WriteContext

            ctx = WriteContext(self.root, self.config,
                               CaptureRunner(self.root, self.paths.state, self.capture_mode))
            self._write_context = ctx
        return ctx

    def submit_draft(
        self, title: str, description: str, acceptance_criteria: list[str],
        parent: str | None = None, repository: str | None = None, *,
        project: str | None = None, gate: GateChoice | None = None,
        session_id: str | None = None, drafter: Principal | None = None,
        agent_name: str | None = None, agent_version: str | None = None,
    ) -> GateAnswer:
        """A new story for a human to review: recorded pending first, then put on the gate."""
        from revetly_core.writes.drafts import submit_draft

        return submit_draft(self._writes(), title, description, acceptance_criteria, parent,
                            repository, project=project, gate=gate, session_id=session_id,
                            drafter=drafter, agent_name=agent_name, agent_version=agent_version)

    def submit_revision(
        self, artifact_id: str, description: str, acceptance_criteria: list[str], *,
        title: str | None = None, project: str | None = None, gate: GateChoice | None = None,
        session_id: str | None = None, drafter: Principal | None = None, agent_name: str | None = None,
        agent_version: str | None = None,
    ) -> GateAnswer:
        """A change to an existing story for a human to review, recorded pending first."""
        from revetly_core.writes.drafts import submit_revision

        return submit_revision(self._writes(), artifact_id, description, acceptance_criteria,
                               title=title, project=project, gate=gate, session_id=session_id,
                               drafter=drafter, agent_name=agent_name,
                               agent_version=agent_version)

    def raise_review(self, review_id: str, *, gate: GateChoice | None = None,
                     session_id: str | None = None) -> GateAnswer | ReviewState:
        """Put a waiting review back in front of a human (it carries, it does not decide)."""
        from revetly_core.writes.drafts import raise_review

        return raise_review(self._writes(), review_id, gate=gate, session_id=session_id)

    def review_pages(self, review_id: str, *, body_limit: int = 2000) -> list[ReviewPage]:
        """The draft as viewport-sized dialog pages, ending in a decision page."""
        from revetly_core.writes.drafts import review_pages

        return review_pages(self._writes(), review_id, body_limit=body_limit)

    def resolve_review(
        self, review_id: str, decision: str, reason: str | None = None, *,
        decided_via: str = "cli", session_id: str | None = None, approver: Principal | None = None,
        served: bool = False,
    ) -> ReviewState:
        """The reviewer's answer: the approver floor, then approve writes + commits the story."""
        from revetly_core.writes.drafts import resolve_review

        return resolve_review(self._writes(), review_id, decision, reason,
                              decided_via=decided_via, session_id=session_id,
                              approver=approver, served=served)

    def withdraw_review(
        self, review_id: str, reason: str | None = None, *, decided_via: str = "cli",
        session_id: str | None = None, approver: Principal | None = None,
    ) -> ReviewState:
        """Take a review off the list without deciding it."""
        from revetly_core.writes.drafts import withdraw_review

        return withdraw_review(self._writes(), review_id, reason, decided_via=decided_via,
                               session_id=session_id, approver=approver)

    def review_state(self, review_id: str) -> ReviewState:
        """Whether one review has been answered, and how."""
        from revetly_core.writes.drafts import review_state

        return review_state(self._writes(), review_id)

    def show_review(self, review_id: str) -> ReviewState:
        """One review whole: its state and the draft (what `revetly review show` prints)."""
        from revetly_core.writes.drafts import show_review

        return show_review(self._writes(), review_id)

    def list_reviews(self, status: str = "pending", project: str | None = None) -> ReviewList:
        """The reviews on record with a status (pending by default, or 'all')."""
        from revetly_core.writes.drafts import list_reviews

        return list_reviews(self._writes(), status, project)

    def set_status(
        self, artifact_id: str, status: str, claimed_by: str | None = None,
        reason: str | None = None, verdicts: list[object] | None = None, *,
        project: str | None = None, principal: Principal | None = None,
    ) -> StatusAnswer:
        """Flip a work item's status (claim on in-progress, delivery record on done)."""
        from revetly_core.writes.status import set_status

        return set_status(self._writes(), artifact_id, status, claimed_by, reason, verdicts,
                          project=project, principal=principal)

    def record_conversation(
        self, title: str, body: str, decisions: list[object] | None = None,
        related_ids: list[str] | None = None, *, project: str | None = None,
        principal: Principal | None = None,
    ) -> ConversationAnswer:
        """A conversation note and its decision notes (supersedes, revises) in one commit."""
        from revetly_core.writes.conversation import record_conversation

        return record_conversation(self._writes(), title, body, decisions, related_ids,
                                   project=project, principal=principal)

    def check_repair(self) -> CheckAnswer:
        """`revetly check --repair`: fold doubled criteria sections, then check again."""
        from revetly_core.writes.repair import repair_doubled_sections

        before = self.check()
        doubled = [str(p["path"]) for p in before["problems"] if p["code"] == "doubled-criteria"]
        repaired = repair_doubled_sections(self._writes(), doubled)
        after = self.check()
        after["repair"] = repaired
        return after

    def wait_for_captures(self, timeout: float = 60.0) -> None:
        """Block until this engine's background passes finish (scripts, benchmarks)."""
        self._writes().captures.wait(timeout)

    # ---- end of writes ----

    def graph(self) -> nx.MultiDiGraph[str]:
        """The networkx graph of live links at the current corpus revision."""
        with self._store() as store:
            return self.graphs.get(store)

    # ---- scope reads (get_scope, get_authoring_context): add them below this line ----

    def _scope_context(self, store: Store) -> ScopeContext:
        from revetly_core.scope.context import ScopeContext
        from revetly_core.scope.path_history import PathHistoryCache

        if self._path_cache is None:
            self._path_cache = PathHistoryCache()
        return ScopeContext(self.config, store, self.index, self.graphs.get(store), self.root,
                            self._path_cache)

    def get_scope(
        self,
        question: str = "binding",
        *,
        artifact_id: str | None = None,
        topic: str | None = None,
        path: str | None = None,
        depth: int | None = None,
        project: str | None = None,
        since: str | None = None,
        until: str | None = None,
        clock: str | None = None,
        limit: int | None = None,
    ) -> ScopeAnswer:
        """binding (artifact_id | topic | path), drift or deltas over one scope."""
        from revetly_core.scope import get_scope

        with self._store() as store:
            return get_scope(self._scope_context(store), question, artifact_id=artifact_id,
                             topic=topic, path=path, depth=depth, project=project, since=since,
                             until=until, clock=clock, limit=limit)

    def get_authoring_context(
        self, topic: str, *, limit: int | None = None, project: str | None = None
    ) -> AuthoringAnswer:
        """The bundle to draft from: nearest backlog, related material, and what binds it."""
        from revetly_core.scope import get_authoring_context

        with self._store() as store:
            return get_authoring_context(self._scope_context(store), topic, limit=limit,
                                         project=project)

    # ---- end of scope reads ----

    # ---- operator commands (doctor, watch, backfill, migrate, audit-links, manual) ----

    def doctor(self) -> DoctorAnswer:
        """Each source's read, the index, one connect line per proven client, and warnings."""
        from revetly_core.operate.doctor import doctor

        return doctor(self.root, self.config)

    def watch(
        self, *, debounce_ms: int | None = None, stop: threading.Event | None = None,
        max_passes: int | None = None,
        report: Callable[[WatchEvent], None] | None = None,
    ) -> WatchSummary:
        """Run the incremental pass on every change until stopped (see operate/watch.py);
        an option left None keeps watch's own default."""
        from revetly_core.operate.watch import watch

        options: dict[str, Any] = {"debounce_ms": debounce_ms, "report": report}
        return watch(self.root, self.config, stop=stop, max_passes=max_passes,
                     **{k: v for k, v in options.items() if v is not None})

    def backfill(self, *, dry_run: bool = False, source: str | None = None,
                 to: dt.date | None = None, window_days: int | None = None,
                 max_windows: int | None = None, progress: Progress = no_progress,
                 ) -> BackfillPlan | BackfillAnswer:
        """Price (dry_run) or read the history below each commits source's floor."""
        from revetly_core.operate.backfill import WINDOW_DAYS, plan_backfill, run_backfill

        days = window_days or WINDOW_DAYS
        if dry_run:
            return plan_backfill(self.root, self.config, source=source, to=to, window_days=days)
        return run_backfill(self.root, self.config, source=source, to=to, window_days=days,
                            max_windows=max_windows, progress=progress)

    def migrate(self, *, dry_run: bool = False) -> MigrateAnswer:
        """Price, then (unless dry_run) apply, the move of CONTEXT to this engine's schema."""
        from revetly_core.operate.migrate import migrate

        return migrate(self.root, self.config, dry_run=dry_run)

    def audit_links(self, project: str | None = None) -> AuditLinksAnswer:
        """CONTEXT's live links counted by the method that found them."""
        from revetly_core.operate.audit_links import audit_links

        with self._store() as store:
            return audit_links(store, project)

    def repository_path(self, given: str, cwd: Path | None = None) -> str:
        """A file named from the working folder as the path its declared code repository uses."""
        from revetly_core.operate.paths import repository_path

        return repository_path(self.root, self.config, given, cwd or Path.cwd())

    @staticmethod
    def manual(topic: str | None = None) -> ManualTopics | ManualPage:
        """The operator manual: its topics, or one topic's page."""
        from revetly_core.operate.manual import manual_page, manual_topics

        return manual_topics() if topic is None else manual_page(topic)

    # ---- end of operator commands ----
