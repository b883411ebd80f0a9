"""search_context's recipe leg on a full instance: Graphiti's recipe (BM25 over the episodes'
text, unstemmed, and the id-name vectors), fused at half weight; off on a lite instance."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from revetly_core.inferred.recipe import NAMES_FILE, name_digest, names_to_embed
from revetly_core.reads import ranking
from revetly_core.reads.search import RECIPE_LEG, SEMANTIC_LEG, Gathered, _method
from revetly_core.reads.search_recipe import (
    RECIPE_METHOD,
    RECIPE_PASSAGE_METHOD,
    add_recipe_leg,
    recipe_order,
    recipe_terms,
)
from revetly_core.store.inferred import InferredStore
from revetly_core.store.queries_search import HitRow
from revetly_core.store.vectors import VectorStore

from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import FakeLlm, write_stories

NO_SEMANTIC = "\n[ranking]\nsemantic = 0.0\n"
"""The semantic leg off, so a row only the recipe reached is the recipe's alone."""


def test_the_recipe_asks_for_the_words_as_written() -> None:
    assert recipe_terms("Retries of the Webhooks, STORY-0003 a") == [
        "retries", "webhooks", "story", "0003"]


def test_the_recipe_orders_its_two_legs_by_reciprocal_rank() -> None:
    assert recipe_order(["B", "A", "C"], ["A", "D"]) == ["A", "B", "D", "C"]
    assert recipe_order(["Y", "X"], ["X", "Y"]) == ["X", "Y"]  # a tie goes by id


def test_the_recipe_counts_half_and_a_row_stands_at_its_better_leg() -> None:
    fused: dict[str, tuple[float, frozenset[int]]] = {"K": (0.3, frozenset({0})),
                                                      "L": (0.9, frozenset({0}))}
    add_recipe_leg(fused, [("K", 1 / 11), ("L", 1 / 12), ("R", 1 / 13)], 0.5, RECIPE_LEG)
    assert fused["K"] == (0.5, frozenset({0, RECIPE_LEG}))  # the better of the two, not 0.8
    assert fused["L"] == (0.9, frozenset({0, RECIPE_LEG}))  # the recipe never lowers a row
    assert fused["R"][0] == pytest.approx(0.5 * 11 / 13)


def test_the_recipe_share_is_half_the_keyword_leg_by_default() -> None:
    assert ranking.leg_share({}, "recipe") == 0.5
    assert ranking.leg_share({"recipe": 0.0}, "recipe") == 0.0


def _gathered(legs: set[int]) -> Gathered:
    return Gathered(HitRow("A-1", "acme", "note", None, None, "source-of-record", False, False),
                    0.0, frozenset(legs))


def test_a_row_only_the_recipe_reached_says_so_on_its_row_and_passage() -> None:
    assert _method(_gathered({RECIPE_LEG})) == RECIPE_METHOD
    assert _method(_gathered({RECIPE_LEG}), passage=True) == RECIPE_PASSAGE_METHOD
    assert _method(_gathered({RECIPE_LEG, 0})) == "keyword (english stemming)"
    assert _method(_gathered({RECIPE_LEG, SEMANTIC_LEG}), "semantic (x)") == "semantic (x)"


def test_a_name_vector_is_embedded_again_only_for_a_new_model() -> None:
    stored = {"A-1": name_digest("m1", "A-1"), "B-1": name_digest("m0", "B-1")}
    assert names_to_embed(["A-1", "B-1", "C-1"], stored, "m1") == ["B-1", "C-1"]


@pytest.fixture()
def full(instance: Instance, fake_llm: FakeLlm) -> Instance:
    inst = write_stories(instance, NO_SEMANTIC + fake_llm.config())
    inst.sync()
    return inst


def test_the_pass_keeps_what_the_recipe_reads(full: Instance) -> None:
    index = full.root / ".revetly" / "index"
    inferred = InferredStore(index)
    assert inferred.without_text() == []
    assert [a for a, _ in inferred.episodes_matching(["spreadsheet"], 10)] == ["STORY-0003"]
    assert inferred.episodes_matching(["spreadsheets"], 10) == []  # no stemming
    assert sorted(VectorStore(index, NAMES_FILE).digests()) == [
        "STORY-0001", "STORY-0002", "STORY-0003"]


def test_the_recipe_reaches_a_row_the_keyword_leg_does_not(
        full: Instance, tmp_path: Path) -> None:
    lite = write_stories(Instance(tmp_path / "lite"), NO_SEMANTIC)
    lite.sync()
    assert lite.engine().search_context("0003")["artifacts"] == []
    rows = full.engine().search_context("0003")["artifacts"]
    assert [(r["artifact_id"], r["method"]) for r in rows] == [("STORY-0003", RECIPE_METHOD)]


def test_the_recipe_is_off_at_a_zero_share(instance: Instance, fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, "\n[ranking]\nsemantic = 0.0\nrecipe = 0.0\n"
                         + fake_llm.config())
    inst.sync()
    assert inst.engine().search_context("0003")["artifacts"] == []


def test_a_row_the_keyword_leg_found_keeps_its_keyword_method(full: Instance) -> None:
    rows = full.engine().search_context("spreadsheet")["artifacts"]
    assert rows[0]["artifact_id"] == "STORY-0003"
    assert rows[0]["method"] == "keyword (english stemming)"


def test_a_file_written_before_the_recipe_is_filled_on_the_next_pass(full: Instance) -> None:
    index = full.root / ".revetly" / "index"
    inferred = InferredStore(index)
    with sqlite3.connect(inferred.path) as conn:
        conn.execute("DELETE FROM episodes_fts")
    (index / NAMES_FILE).unlink()
    assert inferred.without_text() == ["STORY-0001", "STORY-0002", "STORY-0003"]
    full.sync()
    assert inferred.without_text() == []
    assert len(VectorStore(index, NAMES_FILE).digests()) == 3


def test_a_lite_instance_never_opens_the_recipe(instance: Instance) -> None:
    inst = write_stories(instance)
    inst.sync()
    inst.engine().search_context("0003 spreadsheet")
    index = inst.root / ".revetly" / "index"
    assert not (index / "inferred.sqlite").exists() and not (index / NAMES_FILE).exists()
