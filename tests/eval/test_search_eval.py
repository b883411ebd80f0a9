"""Search quality on acme: Revetly's search_context against an SQLite FTS5 bm25 baseline.

The labelled queries are ``queries.toml``; the evaluation is ``evaluate.py`` (also a script).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.scripts import load_script

MIN_RECALL_AT_5 = 0.5


ev = load_script("revetly_search_eval", Path(__file__).resolve().parent / "evaluate.py")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("pygit2")
    instance = ev.build_acme(tmp_path_factory.mktemp("acme-eval"))
    return ev.open_synced(instance)


@pytest.fixture(scope="module")
def queries() -> list[Any]:
    return list(ev.load_queries())


@pytest.fixture(scope="module")
def evaluation(engine: Any, queries: list[Any]) -> Any:
    return ev.evaluate_instance(engine, queries)


def _report(evaluation: Any) -> str:
    return f"{ev.format_table(evaluation)}\n\n{ev.format_losses(evaluation)}"


def test_queries_cover_every_kind(queries: list[Any]) -> None:
    kinds = {q.kind for q in queries}
    assert len(queries) >= 45
    assert kinds == set(ev.KINDS)


def test_every_label_is_a_live_artifact(engine: Any, queries: list[Any]) -> None:
    live = [d.id for d in ev.live_artifacts(engine)]
    assert ev.missing_labels(queries, live) == {}


def test_revetly_mrr_beats_the_fts5_baseline(evaluation: Any) -> None:
    ours, theirs = evaluation.revetly["overall"], evaluation.baseline["overall"]
    assert ours.mrr_at_10 > theirs.mrr_at_10, _report(evaluation)


def test_revetly_recall_at_5(evaluation: Any) -> None:
    assert evaluation.revetly["overall"].recall_at_5 >= MIN_RECALL_AT_5, _report(evaluation)


def test_metrics() -> None:
    assert ev.recall_at(["A", "B", "C", "D", "E", "F"], ["B", "F"]) == 0.5
    assert ev.reciprocal_rank(["A", "B", "C"], ["C", "B"]) == 0.5
    assert ev.reciprocal_rank(["A"] * 10 + ["B"], ["B"]) == 0.0
    assert ev.Fts5Baseline.match_expression('STORY-012 "why" NOT') == '"story" OR "012" OR "why" OR "not"'
