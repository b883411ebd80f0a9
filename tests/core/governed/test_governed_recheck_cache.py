"""Source rechecks are cached per CONTEXT revision and dropped exactly when the CONTEXT moves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.governed.memory_binding import (
    MAX_CACHED_RECHECKS,
    RecheckCache,
    SourceSnapshot,
    snapshot_key,
)

from revetly_core import Scope
from tests.core.gitrepo import Instance, md
from tests.core.governed.proposal_world import ProposalWorld, active_rule, make_proposal_world

LARGE = {"tier": "large", "amount": 900}
SCOPE = Scope("desk", "support")


@pytest.fixture()
def w(instance: Instance, tmp_path: Path) -> Iterator[ProposalWorld]:
    world = make_proposal_world(instance, tmp_path / "homes")
    yield world
    world.close()


def test_evaluate_rereads_the_sources_only_when_the_context_revision_moved(w: ProposalWorld) -> None:
    active_rule(w)
    cache = w.proposals.binding.rechecks
    first = w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)
    before = cache.info()
    second = w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)
    after = cache.info()
    assert first == second and first["decision"] == "deny"
    assert (after["hits"], after["misses"]) == (before["hits"] + 1, before["misses"])


def test_a_changed_source_invalidates_the_cached_recheck_and_withholds_the_rule(w: ProposalWorld) -> None:
    rule_id, _ = active_rule(w)
    assert w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)["rules"][0]["rule_id"] == rule_id
    revision = w.proposals.binding.rechecks.info()["revision"]
    w.instance.git.write_and_commit({"notes/DEC-0001.md": md(
        "DEC-0001", "Refund approvals", "decision", status="accepted", body="No approvals any more.\n")})
    w.instance.sync()
    misses = w.proposals.binding.rechecks.info()["misses"]
    answer = w.lifecycle.evaluate(w.scope, "issue_refund", LARGE)
    assert answer["decision"] == "allow" and answer["rules"] == []
    assert answer["withheld"][0]["rule_id"] == rule_id
    assert "DEC-0001" in answer["withheld"][0]["problems"][0]
    info = w.proposals.binding.rechecks.info()
    assert info["revision"] != revision and info["misses"] == misses + 1


def _snap(artifact_id: str, digest: str = "d" * 64) -> SourceSnapshot:
    return SourceSnapshot(artifact_id, 3, digest, SCOPE, "words")


def test_the_snapshot_key_ignores_kept_words_but_not_the_digest() -> None:
    assert snapshot_key([_snap("A")]) == snapshot_key([SourceSnapshot("A", 3, "d" * 64, SCOPE, "other")])
    assert snapshot_key([_snap("A")]) != snapshot_key([_snap("A", "e" * 64)])


def test_a_new_revision_empties_the_cache() -> None:
    cache = RecheckCache()
    key = snapshot_key([_snap("A")])
    assert cache.get((1, "pass-1"), key) is None
    cache.put((1, "pass-1"), key, ["A changed"])
    assert cache.get((1, "pass-1"), key) == ["A changed"]
    assert cache.get((1, "pass-2"), key) is None
    assert cache.get((2, "pass-2"), key) is None
    assert cache.info()["entries"] == 0


def test_an_answer_computed_at_an_older_revision_is_not_kept() -> None:
    cache = RecheckCache()
    key = snapshot_key([_snap("A")])
    cache.get((2, "pass-2"), key)
    cache.put((1, "pass-1"), key, [])
    assert cache.get((2, "pass-2"), key) is None


def test_the_cache_is_bounded() -> None:
    cache = RecheckCache()
    for n in range(MAX_CACHED_RECHECKS + 1):
        key = snapshot_key([_snap(f"A{n}")])
        cache.get((1, "p"), key)
        cache.put((1, "p"), key, [])
    assert 1 <= cache.info()["entries"] <= MAX_CACHED_RECHECKS


def test_the_engine_s_corpus_revision_is_the_one_context_health_reports_and_moves_with_a_pass(
        w: ProposalWorld) -> None:
    revision, last_pass = w.engine.corpus_revision()
    health = w.engine.context_health()
    assert revision == health["corpus_revision"] and last_pass == health["last_pass"]["pass_id"]
    w.instance.git.write_and_commit({"notes/DEC-0002.md": md(
        "DEC-0002", "Customer replies", "decision", status="accepted", body="Replies are in Dutch.\n")})
    w.instance.sync()
    moved, later_pass = w.engine.corpus_revision()
    assert moved > revision and later_pass != last_pass
