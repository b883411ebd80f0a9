"""context_health: the last pass, each source's last read, history floors and what CONTEXT holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.config import parse_config
from revetly_core.model import Artifact
from revetly_core.reads.health import context_health, freshness, history_block
from revetly_core.store.db import Store
from revetly_core.store.keyword import KeywordIndex

T0 = "2024-01-01T00:00:00+00:00"
T1 = "2024-01-02T00:00:00+00:00"
CONFIG = parse_config({"instance": {"name": "acme"}})


def test_history_block_is_absent_without_floors_gaps_or_partial_reads() -> None:
    assert history_block([]) is None
    assert history_block([{"source": "repository", "floor": None, "gaps": [],
                           "partial": False}]) is None


def test_history_block_lists_floors_gaps_and_partial_sources() -> None:
    block = history_block([
        {"source": "commits/api", "floor": "2024-01-01", "gaps": [], "partial": False},
        {"source": "commits/web", "floor": None, "gaps": ["2023"], "partial": True},
        {"source": "repository", "floor": None, "gaps": [], "partial": False},
    ])
    assert block == {"floors": {"commits/api": "2024-01-01"}, "gaps": {"commits/web": ["2023"]},
                     "partial": ["commits/web"]}
    only_floor = history_block([{"source": "commits/api", "floor": "2024-01-01"}])
    assert only_floor == {"floors": {"commits/api": "2024-01-01"}}


def test_freshness_is_the_oldest_read() -> None:
    assert freshness([]) == {"oldest_source_read_at": None, "watch": False}
    assert freshness([{"last_read_at": T1}, {"last_read_at": T0}, {"last_read_at": None}]) == {
        "oldest_source_read_at": T0, "watch": False}


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / ".revetly" / "context.db")
    yield s  # type: ignore[misc]
    s.close()


def test_health_of_an_empty_store(store: Store, tmp_path: Path) -> None:
    payload = context_health(CONFIG, store, KeywordIndex(tmp_path / "index"))
    assert payload["instance"] == "acme" and payload["project"] == "acme"
    assert payload["corpus_revision"] == 0
    assert payload["last_pass"] is None
    assert payload["sources"] == []
    assert payload["freshness"] == {"oldest_source_read_at": None, "watch": False}
    assert payload["counts"]["artifacts"] == 0
    assert payload["problems"] == 0
    assert payload["index"] == {"backend": "fts5", "revision": None, "current": False}
    assert "history" not in payload and "context_health" not in payload
    assert "criteria_unparsed" not in payload


def test_health_reports_sources_passes_and_unparsed_criteria(store: Store, tmp_path: Path) -> None:
    store.upsert_artifacts([
        Artifact("STORY-1", "story", "A", "repository", "acme", criteria_unparsed=True),
        Artifact("STORY-2", "story", "B", "repository", "acme", criteria_unparsed=True,
                 deleted=True),
    ], T0)
    pid = store.start_pass(T0, True)
    store.record_source("repository", "acme", cursor={}, at=T0, outcome="succeeded", floor=None,
                        gaps=[], partial=False)
    store.record_source("commits/api", "acme", cursor={}, at=T1, outcome="succeeded",
                        floor="2024-01-01", gaps=[], partial=False)
    store.ledger_entry(pid, "repository", started=T0, ended=T0, outcome="succeeded",
                       counts={"read": 2}, floor=None, gaps=[], partial=False, note=None)
    store.end_pass(pid, T1, "succeeded", 1, {"added": 2})
    store.set_meta("corpus_revision", "1")
    index = KeywordIndex(tmp_path / "index")
    index.rebuild(store.artifacts(), 2, 1)
    payload = context_health(CONFIG, store, index)
    assert payload["corpus_revision"] == 1
    assert payload["last_pass"] == {"pass_id": pid, "outcome": "succeeded", "full": True,
                                    "started_at": T0, "ended_at": T1, "changed": {"added": 2}}
    by_source = {s["source"]: s for s in payload["sources"]}
    assert by_source["repository"]["last_counts"] == {"read": 2}
    assert "last_counts" not in by_source["commits/api"]
    assert by_source["commits/api"]["floor"] == "2024-01-01"
    assert payload["freshness"]["oldest_source_read_at"] == T0
    assert payload["history"] == {"floors": {"commits/api": "2024-01-01"}}
    assert payload["criteria_unparsed"] == {"repository": 1}  # the deleted one is not counted
    assert payload["index"] == {"backend": "fts5", "revision": 1, "current": True}


def test_a_failed_last_pass_adds_a_context_health_block(store: Store, tmp_path: Path) -> None:
    ok = store.start_pass(T0, True)
    store.end_pass(ok, T0, "succeeded", 3, {})
    store.set_meta("corpus_revision", "3")
    bad = store.start_pass(T1, False)
    store.end_pass(bad, T1, "failed", 3, {}, "IntegrityError: boom")
    payload = context_health(CONFIG, store, KeywordIndex(tmp_path / "index"))
    assert payload["last_pass"]["outcome"] == "failed"
    assert payload["context_health"] == {
        "last_pass_failed": True, "error": "IntegrityError: boom", "serving_revision": 3,
        "note": "CONTEXT serves what it held before the failed pass"}


def test_a_running_pass_is_not_the_last_pass(store: Store, tmp_path: Path) -> None:
    done = store.start_pass(T0, True)
    store.end_pass(done, T0, "degraded", 1, {})
    store.start_pass(T1, False)
    payload = context_health(CONFIG, store, KeywordIndex(tmp_path / "index"))
    assert payload["last_pass"]["pass_id"] == done
    assert payload["last_pass"]["outcome"] == "degraded"
