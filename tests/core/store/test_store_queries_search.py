"""The batched reads search_context makes of the store: hit rows, bodies, links around hits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.ids import id_key
from revetly_core.model import Link
from revetly_core.store.db import Store
from revetly_core.store.queries_search import HitRow, LinkTally, NeighbourLink, family_of_key
from revetly_core.store.rows import key_text

from tests.core.stored import art

T0 = "2024-01-01T00:00:00+00:00"


def link(src: str, dst: str, relation: str, method: str = "explicit-ref") -> Link:
    return Link(src, dst, relation, method, ())


def test_hit_rows_hold_the_columns_the_ranking_reads(store: Store) -> None:
    store.upsert_artifacts([
        art("STORY-0001", created_at=T0, provenance="inferred"),
        art("STORY-0002", metadata={"withheld": True}, deleted=True),
    ], T0)
    rows = store.hit_rows(["STORY-0001", "STORY-0002", "STORY-0404"])
    assert rows == {
        "STORY-0001": HitRow("STORY-0001", "acme", "story", T0, None, "inferred", False, False,
                             "STORY"),
        "STORY-0002": HitRow("STORY-0002", "acme", "story", None, None, "source-of-record",
                             True, True, "STORY"),
    }


@given(st.from_regex(r"[A-Za-z]{1,6}-?[0-9]{1,5}(\.[0-9]{1,2})?|[a-z ]{1,12}", fullmatch=True))
def test_the_family_of_a_stored_key_is_the_family_of_its_id(artifact_id: str) -> None:
    key = id_key(artifact_id)
    assert family_of_key(key_text(artifact_id)) == (None if key is None else key.family)


def test_bodies_of_answers_the_held_ids_only(store: Store) -> None:
    store.upsert_artifacts([art("STORY-0001"), art("STORY-0002")], T0)
    assert store.bodies_of(["STORY-0002", "STORY-0404"]) == {"STORY-0002": "Body of STORY-0002"}


def test_neighbour_links_of_each_id_are_what_it_touches(store: Store) -> None:
    store.upsert_artifacts([art("A-1"), art("B-1"), art("C-1", deleted=True)], T0)
    store.state_links([link("A-1", "B-1", "cites"), link("B-1", "C-1", "mentions"),
                       link("A-1", "A-1", "references"), link("A-1", "B-1", "parent", "declared")],
                      T0)
    found = store.neighbour_links_of(["A-1", "B-1", "D-1"])
    assert sorted(found["A-1"]) == [NeighbourLink("A-1", "A-1", "references", False),
                                    NeighbourLink("A-1", "B-1", "cites", False)]
    assert sorted(found["B-1"]) == [NeighbourLink("A-1", "B-1", "cites", False),
                                    NeighbourLink("B-1", "C-1", "mentions", True)]
    assert found["D-1"] == []


def test_a_link_into_a_deleted_artifact_marks_only_its_far_end(store: Store) -> None:
    store.upsert_artifacts([art("A-1"), art("C-1", deleted=True)], T0)
    store.state_links([link("C-1", "A-1", "cites")], T0)
    found = store.neighbour_links_of(["A-1", "C-1"])
    assert found["A-1"] == [NeighbourLink("C-1", "A-1", "cites", True)]
    assert found["C-1"] == [NeighbourLink("C-1", "A-1", "cites", False)]


def test_the_declared_link_tally_counts_other_artifacts_per_relation(store: Store) -> None:
    store.state_links([link("A-1", "B-1", "depends_on", "declared"),
                       link("C-1", "B-1", "depends_on", "declared"),
                       link("C-1", "B-1", "parent", "declared"),
                       link("B-1", "B-1", "depends_on", "declared"),
                       link("D-1", "B-1", "depends_on", "explicit-ref")], T0)
    assert sorted(store.declared_link_tally(["B-1", "E-1"])) == [
        LinkTally("B-1", "depends_on", 2), LinkTally("B-1", "parent", 1)]


def test_the_link_tally_counts_only_the_methods_it_is_given(store: Store) -> None:
    store.state_links([link("A-1", "B-1", "depends_on", "declared"),
                       link("C-1", "B-1", "depends_on", "inferred"),
                       link("D-1", "B-1", "depends_on", "explicit-ref")], T0)
    assert store.declared_link_tally(["B-1"], ("declared",)) == [LinkTally("B-1", "depends_on", 1)]
    assert store.declared_link_tally(["B-1"], ("declared", "inferred")) == [
        LinkTally("B-1", "depends_on", 2)]


def test_superseders_and_revising_notes_of_many_ids_are_those_of_each(store: Store) -> None:
    store.upsert_artifacts([
        art("STORY-0001"), art("STORY-0002"), art("NOTE-0003", type="note"),
        art("NOTE-0001", type="note", created_at=T0), art("NOTE-0002", type="note", deleted=True),
    ], T0)
    store.state_links([
        link("NOTE-0001", "STORY-0001", "supersedes", "declared"),
        link("NOTE-0003", "STORY-0001", "supersedes", "declared"),
        link("NOTE-0002", "STORY-0001", "supersedes", "declared"),  # a deleted note: not live
        Link("NOTE-0001", "STORY-0002", "revises", "declared", (("criteria", [1]),)),
        Link("NOTE-0003", "STORY-0002", "revises", "declared", (("criteria", [2]),)),
        Link("NOTE-0002", "STORY-0002", "revises", "declared", (("criteria", [3]),)),
    ], T0)
    ids = ["STORY-0001", "STORY-0002", "NOTE-0001", "STORY-0404"]
    assert store.superseders_of(ids) == {
        i: store.live_superseders(i) for i in ids if store.live_superseders(i)}
    assert store.superseders_of(ids) == {"STORY-0001": ["NOTE-0001", "NOTE-0003"]}
    revising = store.revising_notes_of(ids)
    assert {i: sorted(n) for i, n in revising.items()} == {
        i: sorted(store.revising_notes(i)) for i in ids if store.revising_notes(i)}
    assert [n for n, _, _ in revising["STORY-0002"]] == ["NOTE-0001", "NOTE-0003"]
