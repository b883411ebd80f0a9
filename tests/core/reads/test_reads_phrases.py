"""The phrase part of the keyword leg: the query's adjacent pairs and the pool they rescore."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.reads import ranking
from revetly_core.reads.phrases import query_pairs, with_phrases


def test_query_pairs_are_the_adjacent_terms_in_order_each_once() -> None:
    assert query_pairs(["heap", "soak", "heap", "soak", "spec"]) == [
        ("heap", "soak"), ("soak", "heap"), ("soak", "spec")]


def test_a_one_word_query_has_no_pairs() -> None:
    assert query_pairs(["heap"]) == []
    assert query_pairs([]) == []


def test_a_row_holding_the_pair_gains_its_share_of_the_phrase_score() -> None:
    hits = [("TASK-1", 10.0), ("TASK-2", 9.0)]
    assert with_phrases(hits, {"TASK-2": 8.0}, 0.25) == [("TASK-2", 11.0), ("TASK-1", 10.0)]


def test_rows_no_pair_reaches_keep_their_words_score_ties_by_id() -> None:
    hits = [("TASK-2", 5.0), ("TASK-1", 5.0), ("TASK-3", 1.0)]
    assert with_phrases(hits, {}, 0.25) == [("TASK-1", 5.0), ("TASK-2", 5.0), ("TASK-3", 1.0)]


def test_the_phrase_part_is_on_by_default_and_an_instance_may_turn_it_off() -> None:
    assert ranking.leg_share({}, "phrase") == 0.25
    assert ranking.leg_share({"phrase": 0.0}, "phrase") == 0.0


@given(st.dictionaries(st.sampled_from("ABCDEFGH"), st.floats(0, 100), min_size=1),
       st.dictionaries(st.sampled_from("ABCDEFGH"), st.floats(0, 100)),
       st.floats(0, 2))
def test_rescoring_keeps_the_pool_and_never_lowers_a_row(
    words: dict[str, float], phrase: dict[str, float], share: float
) -> None:
    rescored = dict(with_phrases(list(words.items()), phrase, share))
    assert set(rescored) == set(words)
    assert all(rescored[i] >= words[i] for i in words)
