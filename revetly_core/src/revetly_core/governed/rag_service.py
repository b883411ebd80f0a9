"""RagService: registered sources, searches that leave encrypted receipts, inspection of receipts.

Adapters are trusted owner code; the service still treats what they return as untrusted
evidence: every hit is validated, filtered, and only returned after authorization and the
source's registration were checked again. Adapter calls run in a bounded worker pool under a
monotonic deadline, so a hung provider holds one slot and never spawns more threads.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from revetly_core.governed.feedback import FeedbackService
from revetly_core.governed.idempotency import check_key, record_id_for, replay_or_refuse, request_digest
from revetly_core.governed.principals import Session
from revetly_core.governed.scope import check_name
from revetly_core.governed.sources import (
    RagAdapter,
    RagQuery,
    RagSource,
    filter_hits,
    unknown_fields,
    validate_hit,
)
from revetly_core.governed.vault import CONTROL
from revetly_core.refusal import Refusal

T = TypeVar("T")
RECEIPTS = "receipts"
DEFAULT_WORKERS = 4
DEFAULT_TIMEOUT = 10.0
_RECEIPT_ID = re.compile(r"^rcpt-[0-9a-f]{32}$")


def check_receipt_id(receipt_id: str) -> str:
    """A receipt id is exactly what search returned: rcpt- and 32 hex digits."""
    if not isinstance(receipt_id, str) or not _RECEIPT_ID.match(receipt_id):
        raise Refusal("bad_receipt_id", "not a receipt id", "use the receipt_id a rag_search returned")
    return receipt_id


def adapter_matches_source(source: RagSource, adapter: object) -> None:
    """An adapter that declares a provider id or egress must agree with the source it serves."""
    if not isinstance(adapter, RagAdapter):
        raise Refusal("bad_adapter", "the adapter lacks search(...) and inspect(...)",
                      "implement the RagAdapter protocol")
    provider = getattr(adapter, "provider_id", None)
    if provider is not None and provider != source.provider_id:
        raise Refusal("bad_adapter", f"the adapter is {provider!r}, the source names {source.provider_id!r}",
                      "register the source with the adapter's provider id")
    egress = getattr(adapter, "egress", None)
    if egress == "remote" and source.egress != "remote":
        raise Refusal("bad_adapter", "a remote adapter cannot serve a source declared egress 'none'",
                      "declare the source's egress as 'remote'")


def forgotten_prefix(source_id: str) -> str:
    """The CONTROL id prefix of the content-free records of a source's forgetting (recovery)."""
    return f"forgotten:{source_id}:"


def _registration_id(source_id: str, seq: int) -> str:
    return f"source:{source_id}:{seq:08d}"


class RagService:
    """Governed retrieval over registered sources, for sessions holding search/inspect grants."""

    def __init__(self, feedback: FeedbackService, *, max_workers: int = DEFAULT_WORKERS,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.feedback = feedback
        self.evidence = feedback.evidence
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="revetly-rag")
        self._slots = threading.BoundedSemaphore(max_workers)
        self._adapters: dict[str, tuple[RagSource, RagAdapter]] = {}
        self._followers: dict[str, RagAdapter] = {}
        self._lock = threading.Lock()

    # ---- registration (owner) ----

    def register(self, owner_token: str, source: RagSource, adapter: RagAdapter) -> dict[str, Any]:
        """Owner only: register (or re-register at a new revision) a source served by an adapter."""
        self.evidence.principals.require_owner(owner_token)
        adapter_matches_source(source, adapter)
        with self._lock:
            current = self.registration(source.source_id)
            if current is not None and (current.scope != source.scope
                                        or current.provider_id != source.provider_id):
                raise Refusal("source_conflict", f"source {source.source_id} is registered to another "
                              "scope or provider", "register it under a new source id")
            self._refuse_forgotten_revision(source)
            if current != source:
                seq = len(self.evidence.records(CONTROL, f"source:{source.source_id}:"))
                self.evidence.append(CONTROL, _registration_id(source.source_id, seq),
                                     {"source": source.to_dict(), "active": True,
                                      "at": self.evidence.clock().isoformat()})
            self._adapters[source.source_id] = (source, adapter)
        return {"registered": source.to_dict()}

    def _refuse_forgotten_revision(self, source: RagSource) -> None:
        """A revision the owner forgot is never registered again: re-registration needs a new one."""
        for _, record in self.evidence.records(CONTROL, forgotten_prefix(source.source_id)):
            if source.revision in record["revisions"]:
                raise Refusal("revision_required", f"revision {source.revision} of {source.source_id} "
                              "was forgotten", "register the source under a new revision")

    def revoke_source(self, owner_token: str, source_id: str) -> dict[str, Any]:
        """Owner only: withdraw a source; its receipts can no longer be inspected by a model."""
        self.evidence.principals.require_owner(owner_token)
        with self._lock:
            current = self.registration(source_id)
            if current is None:
                raise Refusal("unknown_source", f"no registered source {source_id}", "check the id")
            seq = len(self.evidence.records(CONTROL, f"source:{source_id}:"))
            self.evidence.append(CONTROL, _registration_id(source_id, seq),
                                 {"source": current.to_dict(), "active": False,
                                  "at": self.evidence.clock().isoformat()})
            self._adapters.pop(source_id, None)
        return {"revoked": source_id}

    def attach_registered(self, adapter: RagAdapter) -> list[str]:
        """Re-attach an adapter to every already-registered source naming its provider id.

        The adapter also follows later registrations by the owner (a new revision registered
        from another process), so a long-running server keeps serving the current revision."""
        provider = getattr(adapter, "provider_id", None)
        if not isinstance(provider, str):
            raise Refusal("bad_adapter", "only an adapter with a provider_id can be re-attached",
                          "give the adapter a provider_id attribute")
        with self._lock:
            self._followers[provider] = adapter
        attached = []
        for source in self._registered_sources():
            if source.provider_id == provider:
                adapter_matches_source(source, adapter)
                with self._lock:
                    self._adapters[source.source_id] = (source, adapter)
                attached.append(source.source_id)
        return attached

    def registration(self, source_id: str) -> RagSource | None:
        """The current registration of a source id, or None when unregistered or revoked."""
        records = self.evidence.records(CONTROL, f"source:{source_id}:")
        if not records:
            return None
        last = records[-1][1]
        return RagSource.from_dict(last["source"]) if last["active"] else None

    def _registered_sources(self) -> list[RagSource]:
        latest: dict[str, dict[str, Any]] = {}
        for _, record in self.evidence.records(CONTROL, "source:"):
            latest[record["source"]["source_id"]] = record
        return [RagSource.from_dict(r["source"]) for r in latest.values() if r["active"]]

    # ---- model-facing operations ----

    def sources(self, session: Session) -> dict[str, Any]:
        """The registered sources of the session's scope (needs the search grant)."""
        with self.feedback.metrics.measure(session.scope.key, "rag_sources"):
            self.feedback.authorize(session, "search")
            listed = [{**s.to_dict(), "available": s.source_id in self._adapters}
                      for s in sorted(self._registered_sources(), key=lambda s: s.source_id)
                      if s.scope == session.scope]
            return {"scope": session.scope.to_dict(), "sources": listed}

    def search(self, session: Session, query: RagQuery, *, idempotency_key: str) -> dict[str, Any]:
        """Search one source; the answer is a retained encrypted receipt, replayed for a same-key retry."""
        with self.feedback.metrics.measure(session.scope.key, "rag_search"):
            self.feedback.authorize(session, "search")
            check_key(idempotency_key)
            partition = session.scope.partition(RECEIPTS)
            receipt_id = record_id_for("rcpt", session.principal_id, session.scope.key, "rag_search",
                                       idempotency_key)
            digest = request_digest({"principal_id": session.principal_id, "query": query.to_dict()})
            existing = self.evidence.get(partition, receipt_id)
            if existing is not None:
                return replay_or_refuse(existing, digest)
            source, adapter = self._serving(session, query.source_id)
            raw = self._call(lambda deadline: adapter.search(source, query, deadline=deadline))
            if not isinstance(raw, tuple | list):
                raise Refusal("provider_malformed_result", "the adapter did not return a tuple of hits",
                              "fix the adapter")
            hits = filter_hits(tuple(validate_hit(source, h) for h in raw), query)
            self.feedback.authorize(session, "search")
            if self.registration(source.source_id) != source:
                raise Refusal("source_changed", f"source {source.source_id} changed during the search",
                              "search again")
            receipt = {"receipt_id": receipt_id, "kind": "rag_search", "version": 1,
                       "principal_id": session.principal_id, "scope": session.scope.to_dict(),
                       "query": query.to_dict(), "request_sha256": digest,
                       "created_at": self.evidence.clock().isoformat(), "sources": [source.to_dict()],
                       "hits": [{**h.to_dict(), "unknown": unknown_fields(h)} for h in hits],
                       "memory_admission": "none"}
            try:
                self.evidence.append(partition, receipt_id, receipt)
            except Refusal as refusal:
                if refusal.code != "record_exists":
                    raise
                return replay_or_refuse(self.evidence.get(partition, receipt_id) or {}, digest)
            return receipt

    def inspect(self, session: Session, receipt_id: str, document_id: str, chunk_id: str) -> dict[str, Any]:
        """The exact passage retained in a receipt (no refetch), while its source is still current."""
        with self.feedback.metrics.measure(session.scope.key, "rag_inspect"):
            self.feedback.authorize(session, "inspect")
            check_receipt_id(receipt_id)
            receipt = self.evidence.get(session.scope.partition(RECEIPTS), receipt_id)
            if receipt is None:
                raise Refusal("no_receipt", f"no receipt {receipt_id} in this scope",
                              "use a receipt_id returned by rag_search in this scope")
            hit = next((h for h in receipt["hits"]
                        if h["document_id"] == document_id and h["chunk_id"] == chunk_id), None)
            if hit is None:
                raise Refusal("not_in_receipt", f"{document_id}/{chunk_id} is not in receipt {receipt_id}",
                              "inspect a document and chunk listed in the receipt's hits")
            retained = RagSource.from_dict(receipt["sources"][0])
            current = self.registration(retained.source_id)
            if current is None:
                raise Refusal("source_revoked", f"source {retained.source_id} was withdrawn",
                              "the owner must register it again; a model cannot inspect it meanwhile")
            if current != retained:
                raise Refusal("source_changed", f"source {retained.source_id} is now at revision "
                              f"{current.revision}, the receipt holds {retained.revision}",
                              "search again for the current revision")
            self.feedback.authorize(session, "inspect")
            return {"receipt_id": receipt_id, "retained": True, "hit": hit}

    # ---- internals ----

    def _serving(self, session: Session, source_id: str) -> tuple[RagSource, RagAdapter]:
        check_name(source_id, "source_id")
        current = self.registration(source_id)
        if current is None or current.scope != session.scope:
            raise Refusal("unknown_source", f"no registered source {source_id} in this scope",
                          "list sources with rag_sources")
        with self._lock:
            attached = self._adapters.get(source_id)
            follower = self._followers.get(current.provider_id)
            if (attached is None or attached[0] != current) and follower is not None:
                adapter_matches_source(current, follower)
                attached = self._adapters[source_id] = (current, follower)
        if attached is None or attached[0] != current:
            raise Refusal("provider_unavailable", f"source {source_id} has no attached adapter here",
                          "the application must register its adapter in this process")
        return attached

    def _call(self, work: Callable[[float], T]) -> T:
        """Run adapter work in the bounded pool; past the monotonic deadline it is an explicit error."""
        deadline = time.monotonic() + self.timeout
        if not self._slots.acquire(timeout=self.timeout):
            raise Refusal("provider_busy", "every provider worker is still busy with earlier calls",
                          "retry later with the same key")
        try:
            future: Future[T] = self._pool.submit(work, deadline)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        try:
            return future.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            raise Refusal("provider_timeout", f"the provider did not answer within {self.timeout:g} s",
                          "retry with the same key; nothing was retained") from None
        except Refusal:
            raise
        except Exception as exc:
            raise Refusal("provider_unavailable", f"the provider failed ({type(exc).__name__})",
                          "retry later with the same key; nothing was retained") from None

    def close(self) -> None:
        """Stop accepting work; running adapter calls finish on their own."""
        self._pool.shutdown(wait=False, cancel_futures=True)
