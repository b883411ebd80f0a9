"""The vectors file: rows per chunk, digests, generations, nearest by an artifact's best chunk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from revetly_core.embedding.provider import unit_rows
from revetly_core.store.vectors import Embedded, VectorStore, nearest


def vec(*values: float) -> np.ndarray:
    return unit_rows(np.asarray([values], dtype=np.float32))


def test_nothing_is_stored_before_a_write(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "index")
    assert not store.present() and store.matrix() is None and store.digests() == {}


def test_an_artifact_ranks_by_its_best_chunk(tmp_path: Path) -> None:
    store = VectorStore(tmp_path)
    two = np.vstack([vec(0, 1), vec(1, 0)])
    store.write("m", [Embedded("A", "da", two), Embedded("B", "db", vec(1, 1))], [], revision=3)
    assert store.digests() == {"A": "da", "B": "db"} and store.revision() == 3
    matrix = store.matrix()
    assert matrix is not None
    ranked = nearest(matrix, vec(1, 0)[0], 5)
    assert [i for i, _ in ranked] == ["A", "B"] and ranked[0][1] > 0.99


def test_a_write_replaces_rows_and_the_read_sees_the_new_generation(tmp_path: Path) -> None:
    store = VectorStore(tmp_path)
    store.write("m", [Embedded("A", "d1", vec(1, 0)), Embedded("B", "d2", vec(0, 1))], [])
    first = store.matrix()
    store.write("m", [Embedded("A", "d3", vec(0, 1))], ["B"])
    second = store.matrix()
    assert first is not None and second is not None and first.generation != second.generation
    assert second.ids == ["A"] and store.digests() == {"A": "d3"}


def test_clear_drops_every_row_of_the_old_model(tmp_path: Path) -> None:
    store = VectorStore(tmp_path)
    store.write("old", [Embedded("A", "d1", vec(1, 0))], [])
    store.write("new", [Embedded("B", "d2", vec(0, 1))], [], clear=True)
    assert store.model_id() == "new" and store.digests() == {"B": "d2"}


def test_nearest_is_cut_to_k_and_ties_go_by_id(tmp_path: Path) -> None:
    store = VectorStore(tmp_path)
    store.write("m", [Embedded(i, i, vec(1, 0)) for i in ("C", "A", "B")], [])
    matrix = store.matrix()
    assert matrix is not None
    assert [i for i, _ in nearest(matrix, vec(1, 0)[0], 2)] == ["A", "B"]


def test_a_query_of_another_dimension_reaches_nothing(tmp_path: Path) -> None:
    store = VectorStore(tmp_path)
    store.write("m", [Embedded("A", "d", vec(1, 0))], [])
    matrix = store.matrix()
    assert matrix is not None and nearest(matrix, vec(1, 0, 0)[0], 3) == []
