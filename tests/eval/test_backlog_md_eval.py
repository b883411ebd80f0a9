"""Search quality on the Backlog.md fixture against the FTS5 baseline (evaluate_backlog_md.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.scripts import load_script

MIN_RECALL_AT_5 = 0.5


bmd = load_script("revetly_backlog_md_eval", Path(__file__).resolve().parent / "evaluate_backlog_md.py")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return bmd.build_backlog_md_instance(tmp_path_factory.mktemp("bmd-eval"))


@pytest.fixture(scope="module")
def queries() -> list[Any]:
    return list(bmd.ev.load_queries(bmd.QUERIES))


def test_queries_cover_every_kind(queries: list[Any]) -> None:
    assert len(queries) >= 30
    assert {q.kind for q in queries} == set(bmd.ev.KINDS)


def test_every_label_is_a_live_artifact(engine: Any, queries: list[Any]) -> None:
    live = [d.id for d in bmd.ev.live_artifacts(engine)]
    assert bmd.ev.missing_labels(queries, live) == {}


def test_revetly_mrr_beats_the_fts5_baseline(engine: Any, queries: list[Any]) -> None:
    evaluation = bmd.ev.evaluate_instance(engine, queries)
    ours, theirs = evaluation.revetly["overall"], evaluation.baseline["overall"]
    assert ours.mrr_at_10 > theirs.mrr_at_10, bmd.ev.format_table(evaluation)
    assert ours.recall_at_5 >= MIN_RECALL_AT_5, bmd.ev.format_table(evaluation)
