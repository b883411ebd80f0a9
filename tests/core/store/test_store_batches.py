"""One batching rule for id lists sent to SQLite, and the queries that batch on both link ends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.model import Artifact, Link
from revetly_core.store.batches import ID_BATCH, batches, marks
from revetly_core.store.db import SQLiteStore

T0 = "2024-01-01T00:00:00+00:00"
T1 = "2024-01-02T00:00:00+00:00"


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "state" / "context.db") as s:
        yield s


def story(aid: str) -> Artifact:
    return Artifact(id=aid, type="story", title=f"Title of {aid}", source="repository",
                    project="acme")


@given(st.lists(st.text(min_size=1, max_size=4)), st.integers(min_value=1, max_value=50))
def test_batches_keep_every_id_once_in_order_and_never_exceed_the_size(
    ids: list[str], size: int
) -> None:
    parts = list(batches(ids, size))
    assert [i for part in parts for i in part] == ids
    assert all(1 <= len(part) <= size for part in parts)


def test_batches_of_nothing_are_none() -> None:
    assert list(batches([])) == []


def test_the_batch_named_twice_stays_under_the_oldest_variable_limit() -> None:
    assert 2 * ID_BATCH <= 999


def test_marks_bind_one_placeholder_per_id() -> None:
    assert marks(["a", "b", "c"]) == "?,?,?"


def _chain(store: SQLiteStore, n: int) -> list[str]:
    """n stories, each declaring the previous one its parent; the first then retired below."""
    ids = [f"STORY-{i:05d}" for i in range(n)]
    store.upsert_artifacts([story(i) for i in ids], T0)
    store.state_links([Link(ids[i], ids[i - 1], "parent", "declared") for i in range(1, n)], T0)
    return ids


def test_declared_facts_across_batches_name_each_link_once(store: SQLiteStore) -> None:
    ids = _chain(store, ID_BATCH + 50)
    facts = store.declared_facts(ids)
    assert len(facts) == len(ids) - 1
    assert {(f.src, f.dst) for f in facts} == {(ids[i], ids[i - 1]) for i in range(1, len(ids))}
    assert all(f.src_title == f"Title of {f.src}" for f in facts)


def test_retired_links_across_batches_come_once_and_sorted(store: SQLiteStore) -> None:
    ids = _chain(store, ID_BATCH + 50)
    store.retire_links([(ids[i], ids[i - 1], "parent", "declared") for i in range(1, len(ids))], T1)
    retired = store.retired_declared_links(ids)
    assert len(retired) == len(ids) - 1
    keys = [(r.src, r.dst, r.relation) for r in retired]
    assert keys == sorted(keys)
    assert {r.invalid_at for r in retired} == {T1}


def test_revises_within_keeps_pairs_whose_ends_fall_in_different_batches(
    store: SQLiteStore,
) -> None:
    ids = [f"NOTE-{i:05d}" for i in range(ID_BATCH + 10)]
    store.upsert_artifacts([story(i) for i in ids], T0)
    far = ids[-1]
    store.state_links([Link(ids[0], far, "revises", "declared"),
                       Link(ids[1], "ELSEWHERE-1", "revises", "declared")], T0)
    assert store.revises_within(ids) == [(ids[0], far)]


def test_held_and_deleted_among_read_more_ids_than_one_batch(store: SQLiteStore) -> None:
    ids = _chain(store, ID_BATCH * 2 + 3)
    store.mark_deleted(ids[-1], T1, "found", None)
    asked = [*ids, "STORY-99999"]
    assert store.held_among(asked) == set(ids)
    assert store.deleted_among(asked) == {ids[-1]}
