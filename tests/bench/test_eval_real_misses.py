"""bench/eval_real.py's per-query dump: which queries it lists, and the file it writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.scripts import load_script

ev = load_script("revetly_bench_eval_real",
                 Path(__file__).resolve().parents[2] / "bench" / "eval_real.py")


def labels() -> Any:
    hard = [{"query": "heap soak", "label": "BACK-1"}, {"query": "drip gate", "label": "BACK-2"},
            {"query": "tier zero", "label": "BACK-3"}]
    return ev.Labels(hard=hard, plain=[], b=[{"query": "dark mode", "label": "BACK-4"}], c=[], d=[])


def test_a_query_is_listed_when_not_first_or_ranked_unlike_the_plain_index() -> None:
    ours = {"(a) hard": [1, 1, None], "(a) plain": [], "(b)": [2]}
    plain = {"(a) hard": [1, 3, None], "(a) plain": [], "(b)": [2]}
    rows = ev.per_query_rows(labels(), ours, plain)
    assert [(r["set"], r["label"], r["revetly"], r["fts5"]) for r in rows] == [
        ("(a) hard", "BACK-2", 1, 3), ("(a) hard", "BACK-3", None, None), ("(b)", "BACK-4", 2, 2)]


def test_score_sets_keeps_each_sets_ranks_when_asked() -> None:
    ranks: dict[str, list[int | None]] = {}
    answers = {"heap soak": ["1"], "drip gate": ["9", "2"], "tier zero": [], "dark mode": ["4"]}
    ev.score_sets(lambda q: answers[q], labels(), frozenset({"back"}), ranks)
    assert ranks == {"(a) hard": [1, 2, None], "(a) plain": [], "(b)": [1]}


def test_the_misses_are_written_as_json_lines(tmp_path: Path) -> None:
    rows = [{"set": "(b)", "query": "é", "label": "BACK-4", "revetly": None, "fts5": 1}]
    ev.write_misses(tmp_path / "out" / "otgw.jsonl", rows)
    lines = (tmp_path / "out" / "otgw.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == rows
