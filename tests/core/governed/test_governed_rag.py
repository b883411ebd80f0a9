"""RagService: receipts, idempotency, inspection, worker pool and deadlines, the sqlite-vault provider."""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.governed.provider_sqlite import fts_match
from revetly_core.governed.rag_service import RECEIPTS, check_receipt_id

from revetly_core import RagHit, RagQuery, RagService, RagSource, Refusal
from tests.core.governed.governed_world import World, law_hits


class SlowAdapter:
    """An adapter that blocks until released (a hung provider)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def search(self, source: RagSource, query: RagQuery, *, deadline: float) -> tuple[RagHit, ...]:
        self.calls += 1
        self.release.wait(30)
        return ()

    def inspect(self, source: RagSource, document_id: str, chunk_id: str, *, deadline: float) -> RagHit:
        raise KeyError(document_id)


class ScriptedAdapter:
    """An adapter returning whatever the test put in `answer`, or raising `error`."""

    def __init__(self, answer: object = (), error: Exception | None = None) -> None:
        self.answer = answer
        self.error = error

    def search(self, source: RagSource, query: RagQuery, *, deadline: float) -> tuple[RagHit, ...]:
        if self.error is not None:
            raise self.error
        return self.answer  # type: ignore[return-value]

    def inspect(self, source: RagSource, document_id: str, chunk_id: str, *, deadline: float) -> RagHit:
        raise KeyError(document_id)


def _register(world: World, adapter: object, source_id: str = "ext") -> RagSource:
    source = RagSource(source_id, world.scope, "external", "r1", "remote", "app-retriever")
    world.rag.register(world.owner, source, adapter)  # type: ignore[arg-type]
    return source


def test_search_returns_ranked_filtered_hits(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "filing", jurisdiction="XX",
                                                       as_of="2025-06-01"),  # type: ignore[arg-type]
                               idempotency_key="k")
    assert [(h["document_id"], h["chunk_id"]) for h in receipt["hits"]] == [("filing", "c1"),
                                                                            ("filing", "c2")]
    assert receipt["sources"] == [world.source.to_dict()]
    assert receipt["memory_admission"] == "none"


def test_unknown_validity_stays_explicit_when_unfiltered(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "parking permits"), idempotency_key="k")
    (hit,) = receipt["hits"]
    assert hit["effective_from"] is None and hit["unknown"] == ["effective_from", "effective_to"]


def test_a_same_key_retry_returns_the_original_receipt(world: World) -> None:
    query = RagQuery("law", "filing deadline")
    first = world.rag.search(world.session, query, idempotency_key="k")
    world.clock.advance(minutes=5)
    assert world.rag.search(world.session, query, idempotency_key="k") == first
    assert world.evidence.usage(world.scope.partition(RECEIPTS))["records"] == 1


def test_reusing_a_key_for_another_request_is_refused(world: World) -> None:
    world.rag.search(world.session, RagQuery("law", "filing deadline"), idempotency_key="k")
    with pytest.raises(Refusal) as refused:
        world.rag.search(world.session, RagQuery("law", "parking"), idempotency_key="k")
    assert refused.value.code == "idempotency_conflict"


def test_receipts_are_encrypted_at_rest(world: World) -> None:
    world.rag.search(world.session, RagQuery("law", "distinctivequeryword filing"), idempotency_key="k")
    for path in world.evidence.home.path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"distinctivequeryword" not in data and b"annual returns" not in data


def test_inspect_returns_the_retained_passage_not_a_refetch(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    world.provider._indexes.clear()  # whatever the provider holds now, inspect reads the receipt
    shown = world.rag.inspect(world.session, receipt["receipt_id"], "filing", "c1")
    assert shown["hit"]["passage"] == "The filing deadline for annual returns is the last day of April."


def test_inspect_refuses_a_chunk_not_in_the_receipt(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    with pytest.raises(Refusal) as refused:
        world.rag.inspect(world.session, receipt["receipt_id"], "parking", "c1")
    assert refused.value.code == "not_in_receipt"


def test_inspect_refuses_after_the_source_changed_revision(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    r2 = replace(world.source, revision="r2")
    world.rag.register(world.owner, r2, world.provider)
    with pytest.raises(Refusal) as refused:
        world.rag.inspect(world.session, receipt["receipt_id"], "filing", "c1")
    assert refused.value.code == "source_changed"


def test_inspect_refuses_after_the_source_was_revoked(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    world.rag.revoke_source(world.owner, "law")
    with pytest.raises(Refusal) as refused:
        world.rag.inspect(world.session, receipt["receipt_id"], "filing", "c1")
    assert refused.value.code == "source_revoked"
    with pytest.raises(Refusal):
        world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k2")


@pytest.mark.parametrize("receipt_id", ["", "rcpt-xyz", "../../etc/passwd", "rcpt-" + "0" * 33])
def test_hostile_receipt_ids_are_refused(receipt_id: str) -> None:
    with pytest.raises(Refusal) as refused:
        check_receipt_id(receipt_id)
    assert refused.value.code == "bad_receipt_id"


def test_a_receipt_of_another_scope_cannot_be_inspected(world: World, tmp_path: Path) -> None:
    from datetime import timedelta

    from revetly_core import Scope
    from tests.core.governed.governed_world import START

    receipt = world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    other_scope = Scope("writer", "other")
    world.evidence.principals.grant(world.owner, world.principal_id, ["inspect"], other_scope,
                                    START + timedelta(days=1))
    other = world.evidence.principals.session(world.app_token, other_scope)
    with pytest.raises(Refusal) as refused:
        world.rag.inspect(other, receipt["receipt_id"], "filing", "c1")
    assert refused.value.code == "no_receipt"


def test_an_unregistered_source_is_refused(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        world.rag.search(world.session, RagQuery("nope", "filing"), idempotency_key="k")
    assert refused.value.code == "unknown_source"


def test_sources_lists_the_scope_s_sources(world: World) -> None:
    listed = world.rag.sources(world.session)
    assert [s["source_id"] for s in listed["sources"]] == ["law"]
    assert listed["sources"][0]["available"] is True


def test_concurrent_searches_from_threads(world: World) -> None:
    def one(i: int) -> dict[str, object]:
        return world.rag.search(world.session, RagQuery("law", "filing penalty"), idempotency_key=f"k{i % 8}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        receipts = list(pool.map(one, range(32)))
    by_key: dict[str, object] = {}
    for i, receipt in enumerate(receipts):
        assert by_key.setdefault(f"k{i % 8}", receipt) == receipt
    assert len({r["receipt_id"] for r in receipts}) == 8  # type: ignore[index]
    assert world.evidence.usage(world.scope.partition(RECEIPTS))["records"] == 8
    world.evidence.verify(world.scope.partition(RECEIPTS))


def test_a_slow_adapter_exceeds_the_deadline(world: World) -> None:
    slow = SlowAdapter()
    rag = RagService(world.feedback, max_workers=1, timeout=0.2)
    source = RagSource("ext", world.scope, "external", "r1", "remote", "app-retriever")
    rag.register(world.owner, source, slow)
    try:
        with pytest.raises(Refusal) as refused:
            rag.search(world.session, RagQuery("ext", "anything"), idempotency_key="k")
        assert refused.value.code == "provider_timeout"
        # the hung call still holds the only worker slot: no new thread is spawned for a retry
        with pytest.raises(Refusal) as busy:
            rag.search(world.session, RagQuery("ext", "anything"), idempotency_key="k")
        assert busy.value.code == "provider_busy"
        assert slow.calls == 1
        assert world.evidence.get(world.scope.partition(RECEIPTS), "rcpt-" + "0" * 32) is None
    finally:
        slow.release.set()
        rag.close()


def test_a_failing_adapter_is_provider_unavailable(world: World) -> None:
    _register(world, ScriptedAdapter(error=ConnectionError("secret host detail")))
    with pytest.raises(Refusal) as refused:
        world.rag.search(world.session, RagQuery("ext", "q"), idempotency_key="k")
    assert refused.value.code == "provider_unavailable"
    assert "secret host detail" not in str(refused.value)


@pytest.mark.parametrize("answer", ["not hits", ({"passage": "x"},)])
def test_malformed_results_are_explicit_errors(world: World, answer: object) -> None:
    _register(world, ScriptedAdapter(answer=answer))
    with pytest.raises(Refusal) as refused:
        world.rag.search(world.session, RagQuery("ext", "q"), idempotency_key="k")
    assert refused.value.code == "provider_malformed_result"


def test_a_hit_from_another_revision_is_malformed(world: World) -> None:
    source = RagSource("ext", world.scope, "external", "r1", "remote", "app-retriever")
    stale = RagHit.make(replace(source, revision="r0"), "d", "c", "text", "cite")
    _register(world, ScriptedAdapter(answer=(stale,)))
    with pytest.raises(Refusal) as refused:
        world.rag.search(world.session, RagQuery("ext", "q"), idempotency_key="k")
    assert refused.value.code == "provider_malformed_result"


def test_a_remote_adapter_cannot_serve_a_local_source(world: World) -> None:
    class Remote(ScriptedAdapter):
        egress = "remote"

    source = RagSource("ext", world.scope, "external", "r1", "none", "app-retriever")
    with pytest.raises(Refusal) as refused:
        world.rag.register(world.owner, source, Remote())
    assert refused.value.code == "bad_adapter"


def test_a_changed_passage_needs_a_new_revision(world: World) -> None:
    changed = RagHit.make(world.source, "filing", "c1", "A different text.", "Law filing §c1")
    with pytest.raises(Refusal) as refused:
        world.provider.put_documents(world.owner, world.source, [changed])
    assert refused.value.code == "revision_required"
    again = world.provider.put_documents(world.owner, world.source, law_hits(world.source))
    assert again["added"] == 0 and again["unchanged"] == 4
    r2 = replace(world.source, revision="r2")
    assert world.provider.put_documents(world.owner, r2, [replace(changed, revision="r2")])["added"] == 1


def test_put_documents_batches_are_bounded(world: World) -> None:
    many = [RagHit.make(world.source, f"d{i}", "c", f"text {i}", "cite") for i in range(1001)]
    with pytest.raises(Refusal) as refused:
        world.provider.put_documents(world.owner, world.source, many)
    assert refused.value.code == "batch_too_large"


def test_the_fts_index_lives_only_in_memory(world: World) -> None:
    world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
    files = {p.name for p in world.evidence.home.path.rglob("*") if p.is_file()}
    assert all(name in ("master.key", "machine-binding") or name.startswith("evidence.db")
               or name.endswith(".ckpt") for name in files), files
    index = next(iter(world.provider._indexes.values()))
    assert index.fts.execute("PRAGMA database_list").fetchone()[2] == ""


def test_the_ram_index_is_reused_per_revision(world: World) -> None:
    world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k1")
    index = next(iter(world.provider._indexes.values()))
    world.rag.search(world.session, RagQuery("law", "parking"), idempotency_key="k2")
    assert next(iter(world.provider._indexes.values())) is index


def test_query_words_become_quoted_terms() -> None:
    assert fts_match('deadline" OR NEAR(x') == '"deadline" OR "or" OR "near" OR "x"'
    assert fts_match("!!!") is None


def test_a_slow_search_does_not_block_others(world: World) -> None:
    slow = SlowAdapter()
    _register(world, slow)
    started = threading.Event()

    def hung() -> None:
        started.set()
        with contextlib.suppress(Refusal):
            world.rag.search(world.session, RagQuery("ext", "q"), idempotency_key="slow")

    thread = threading.Thread(target=hung)
    thread.start()
    started.wait()
    while slow.calls == 0:
        time.sleep(0.01)
    assert world.rag.search(world.session, RagQuery("law", "filing"), idempotency_key="k")["hits"]
    slow.release.set()
    thread.join()


def test_authorization_is_checked_again_after_provider_work(world: World) -> None:
    class RevokingAdapter(ScriptedAdapter):
        def search(self, source: RagSource, query: RagQuery, *, deadline: float) -> tuple[RagHit, ...]:
            world.evidence.principals.revoke_grant(world.owner, world.grant_id)
            return ()

    _register(world, RevokingAdapter())
    with pytest.raises(Refusal) as refused:
        world.rag.search(world.session, RagQuery("ext", "q"), idempotency_key="k")
    assert refused.value.code == "not_authorized"
    assert world.evidence.usage(world.scope.partition(RECEIPTS))["records"] == 0


def test_a_registered_source_without_an_adapter_here_is_unavailable(world: World) -> None:
    elsewhere = RagService(world.feedback)  # another process: nothing attached
    try:
        with pytest.raises(Refusal) as refused:
            elsewhere.search(world.session, RagQuery("law", "filing"), idempotency_key="k")
        assert refused.value.code == "provider_unavailable"
        assert elsewhere.sources(world.session)["sources"][0]["available"] is False
    finally:
        elsewhere.close()


def test_a_reattached_provider_follows_a_new_revision_registered_elsewhere(world: World) -> None:
    from revetly_core import EvidenceService, FeedbackService, SQLiteRagProvider

    server_evidence = EvidenceService.open(world.evidence.home.path.parent, "vault", clock=world.clock)
    server_feedback = FeedbackService(server_evidence)
    server = RagService(server_feedback)
    server.attach_registered(SQLiteRagProvider(server_feedback))
    session = server_evidence.principals.session(world.app_token, world.scope)
    try:
        assert server.search(session, RagQuery("law", "filing"), idempotency_key="k1")["hits"]
        r2 = replace(world.source, revision="r2")
        world.rag.register(world.owner, r2, world.provider)
        world.provider.put_documents(world.owner, r2, [
            RagHit.make(r2, "filing", "c1", "Returns are now due in May.", "Law filing §c1")])
        receipt = server.search(session, RagQuery("law", "returns due"), idempotency_key="k2")
        assert receipt["sources"][0]["revision"] == "r2"
        assert receipt["hits"][0]["passage"] == "Returns are now due in May."
    finally:
        server.close()
        server_evidence.close()


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_any_query_text_is_a_valid_fts_expression(text: str) -> None:
    import sqlite3

    match = fts_match(text)
    if match is None:
        return
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
    db.execute("INSERT INTO t(body) VALUES ('some text')")
    db.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()
