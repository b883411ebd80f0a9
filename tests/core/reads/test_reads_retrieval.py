"""Fusion by rank and the two reorder rules."""

from __future__ import annotations

import pytest
from revetly_core.reads import retrieval
from revetly_core.reads.retrieval import Row


def test_each_leg_contributes_reciprocal_rank_with_offset_ten() -> None:
    assert retrieval.leg_score(1) == 1 / 11
    assert retrieval.leg_score(3, 0.5) == 0.5 / 13


def test_a_row_on_both_legs_stands_at_the_better_never_the_sum() -> None:
    fused = retrieval.fuse([(["a", "b"], 1.0), (["b", "a"], 0.5)])
    assert fused["a"] == (1 / 11, frozenset({0, 1}))
    assert fused["b"][0] == max(1 / 12, 0.5 / 11)


def test_feedback_only_rows_rank_below_keyword_rows_at_the_same_place() -> None:
    fused = retrieval.fuse([(["a"], 1.0), (["z"], retrieval.FEEDBACK_SHARE)])
    assert fused["a"][0] > fused["z"][0]
    assert fused["z"][1] == frozenset({1})


def rows(*specs: tuple[str, str, str, str]) -> dict[str, Row]:
    return {s[0]: Row(*s) for s in specs}


def test_newer_decision_naming_an_older_one_moves_just_ahead_of_it() -> None:
    r = rows(("DEC-1", "decision", "2024-01-01", ""), ("X", "story", "2024-02-01", ""),
             ("DEC-2", "decision", "2024-03-01", "revises DEC-1"))
    order = ["DEC-1", "X", "DEC-2"]
    retrieval.newer_decision_first(order, r, {"DEC-2": {"DEC-1"}})
    assert order == ["DEC-2", "DEC-1", "X"]


def test_an_older_decision_naming_a_newer_one_moves_nothing() -> None:
    r = rows(("DEC-1", "decision", "2024-05-01", ""), ("DEC-2", "decision", "2024-03-01", ""))
    order = ["DEC-1", "DEC-2"]
    retrieval.newer_decision_first(order, r, {"DEC-2": {"DEC-1"}})
    assert order == ["DEC-1", "DEC-2"]


def test_a_note_speaking_of_criteria_is_served_just_ahead_of_the_story() -> None:
    r = rows(("S", "story", "2024-01-01", ""), ("A", "story", "2024-01-02", ""),
             ("N", "conversation", "2024-02-01", "We widened AC3 of the story"))
    order = ["S", "A", "N"]
    retrieval.criteria_note_first(order, r, {"N": {"S"}}, limit=10)
    assert order == ["N", "S", "A"]


def test_a_note_not_speaking_of_criteria_moves_nothing() -> None:
    r = rows(("S", "story", "2024-01-01", ""), ("N", "conversation", "2024-02-01", "about it"))
    order = ["S", "N"]
    retrieval.criteria_note_first(order, r, {"N": {"S"}}, limit=10)
    assert order == ["S", "N"]


def test_the_story_sinks_only_when_the_note_is_inside_the_cut() -> None:
    r = rows(("S", "story", "2024-01-01", ""), ("A", "story", "2024-01-02", ""),
             ("N", "decision", "2024-02-01", "acceptance criterion 2 changes"))
    order = ["S", "A", "N"]
    retrieval.criteria_note_first(order, r, {"N": {"S"}}, limit=2)
    assert order == ["S", "A", "N"]


def test_speaks_of_criteria_words() -> None:
    for text in ("AC5 changed", "ACs 3 and 4", "the criterion", "acceptance tests"):
        assert retrieval.speaks_of_criteria(text)
    assert not retrieval.speaks_of_criteria("a plain note about caching")


def test_revises_order_is_off_by_default_and_moves_nothing() -> None:
    r = rows(("S", "story", "2024-01-01", ""), ("N", "decision", "2024-02-01", ""))
    order = ["S", "N"]
    retrieval.revising_note_first(order, r, {"N": {"S"}}, limit=10)
    assert order == ["S", "N"]


def test_revises_order_when_on_sinks_the_story_below_a_later_reviser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(retrieval, "REVISES_ORDER", True)
    r = rows(("S", "story", "2024-01-01", ""), ("A", "story", "2024-01-05", ""),
             ("N", "decision", "2024-02-01", ""))
    order = ["S", "A", "N"]
    retrieval.revising_note_first(order, r, {"N": {"S"}}, limit=10)
    assert order == ["N", "S", "A"]


def test_pull_revising_is_off_by_default() -> None:
    order = ["S"]
    assert retrieval.pull_revising(order, {"S": "N"}) == []
    assert order == ["S"]


def test_pull_revising_when_on_pulls_the_newest_reviser_ahead_within_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(retrieval, "PULL_REVISING", True)
    order = ["S1", "S2", "S3", "X"]
    pulled = retrieval.pull_revising(order, {"S1": "N1", "S2": "N2", "S3": "N3"})
    assert pulled == [("N1", "S1"), ("N2", "S2")]
    assert order == ["N1", "S1", "N2", "S2", "S3", "X"]
