"""FeedbackRecovery: exact-preview forgetting of a source, then search finds nothing of it."""

from __future__ import annotations

import sqlite3

import pytest
from revetly_core.governed.recovery import FeedbackRecovery, outcome_cites, receipt_cites

from revetly_core import EvidenceService, RagHit, RagQuery, Refusal, Scope
from tests.core.governed.governed_world import World


def _search(world: World, text: str, key: str) -> dict[str, object]:
    return world.rag.search(world.session, RagQuery("law", text), idempotency_key=key)


def _report(world: World, key: str, receipts: list[str]) -> str:
    record = world.feedback.report_outcome(
        world.session, {"run_id": f"run-{key}", "task_id": f"task-{key}", "status": "succeeded",
                        "receipts": receipts}, key)
    return str(record["outcome_id"])


def test_receipt_cites_only_its_retained_source() -> None:
    assert receipt_cites({"sources": [{"source_id": "law"}]}, "law")
    assert not receipt_cites({"sources": [{"source_id": "other"}], "note": "law"}, "law")


def test_outcome_cites_only_receipts_in_its_receipts_list() -> None:
    assert outcome_cites({"report": {"receipts": ["rcpt-1"]}}, {"rcpt-1"})
    assert not outcome_cites({"report": {"receipts": [], "note": "rcpt-1"}}, {"rcpt-1"})


def test_the_preview_lists_exactly_what_depends_on_the_source(world: World) -> None:
    receipt = _search(world, "filing deadline", "s1")
    linked = _report(world, "o1", [str(receipt["receipt_id"])])
    unlinked = _report(world, "o2", [])
    preview = FeedbackRecovery(world.rag).preview_forget(world.owner, world.scope, "law")
    assert preview["receipts"] == [receipt["receipt_id"]]
    assert preview["outcomes"] == [linked] and unlinked not in preview["outcomes"]
    assert [d["records"] for d in preview["documents"]] == [1]
    assert preview["revisions"] == ["r1"] and preview["registered"] is True


def test_forget_then_search_finds_nothing_of_the_forgotten_source(world: World) -> None:
    receipt = _search(world, "filing deadline", "s1")
    assert receipt["hits"]
    linked = _report(world, "o1", [str(receipt["receipt_id"])])
    unlinked = _report(world, "o2", [])
    recovery = FeedbackRecovery(world.rag)
    preview = recovery.preview_forget(world.owner, world.scope, "law")
    done = recovery.forget(world.owner, world.scope, "law", confirm=preview["preview_sha256"])
    assert done["deletion_complete"] is True
    assert done["erased"] == {"document_records": 1, "receipts": 1, "outcomes": 1}

    with pytest.raises(Refusal) as revoked:
        _search(world, "filing deadline", "s2")
    assert revoked.value.code == "unknown_source"
    assert world.rag.sources(world.session)["sources"] == []
    with pytest.raises(Refusal) as same_revision:
        world.rag.register(world.owner, world.source, world.provider)
    assert same_revision.value.code == "revision_required"

    fresh = world.provider.source("law", world.scope, "statutes", "r2")
    world.rag.register(world.owner, fresh, world.provider)
    world.provider.put_documents(world.owner, fresh, [
        RagHit.make(fresh, "weather", "c1", "Rain is expected on Tuesday.", "Bulletin", "w#1",
                    None, None, None)])
    for words in ("filing deadline", "parking permits", "public holidays", "penalty"):
        assert _search(world, words, f"after-{words.replace(' ', '-')}")["hits"] == []
    assert _search(world, "rain", "after-rain")["hits"]

    with pytest.raises(Refusal) as replay:
        _search(world, "filing deadline", "s1")  # the old key: a content-free anchor, never re-run
    assert replay.value.code == "record_forgotten"
    with pytest.raises(Refusal) as inspect:
        world.rag.inspect(world.session, str(receipt["receipt_id"]), "filing", "c1")
    assert inspect.value.code == "record_forgotten"
    with pytest.raises(Refusal) as outcome:
        world.feedback.outcome(world.session, linked)
    assert outcome.value.code == "record_forgotten"
    assert world.feedback.outcome(world.session, unlinked)["outcome_id"] == unlinked


def test_erased_ciphertext_is_not_left_in_the_home_files(world: World) -> None:
    _search(world, "filing deadline", "s1")
    with sqlite3.connect(world.evidence.home.database) as db:
        blobs = [bytes(row[0][-64:]) for row in db.execute(
            "SELECT ciphertext FROM records WHERE partition LIKE 'docs:%' OR partition LIKE '%#receipts'")]
    assert blobs
    recovery = FeedbackRecovery(world.rag)
    preview = recovery.preview_forget(world.owner, world.scope, "law")
    recovery.forget(world.owner, world.scope, "law", confirm=preview["preview_sha256"])
    for partition in world.evidence.partitions():
        assert world.evidence.verify(partition)["ok"]  # every re-anchored chain still checks
    world.evidence.close()
    stored = b"".join(p.read_bytes() for p in world.evidence.home.path.rglob("*") if p.is_file())
    assert not any(blob in stored for blob in blobs)
    world.evidence = EvidenceService.open(world.root, "vault")


def test_forget_refuses_a_confirmation_of_an_older_preview(world: World) -> None:
    recovery = FeedbackRecovery(world.rag)
    preview = recovery.preview_forget(world.owner, world.scope, "law")
    _search(world, "filing deadline", "s1")  # a new receipt changes what forget would remove
    with pytest.raises(Refusal) as refused:
        recovery.forget(world.owner, world.scope, "law", confirm=preview["preview_sha256"])
    assert refused.value.code == "preview_mismatch"
    assert _search(world, "parking permits", "s2")["hits"]  # nothing was removed


def test_forget_is_owner_only_and_scoped(world: World) -> None:
    recovery = FeedbackRecovery(world.rag)
    with pytest.raises(Refusal) as not_owner:
        recovery.preview_forget(world.app_token, world.scope, "law")
    assert not_owner.value.code == "not_owner"
    with pytest.raises(Refusal) as other_scope:
        recovery.preview_forget(world.owner, Scope("reader", "project"), "law")
    assert other_scope.value.code == "unknown_source"
