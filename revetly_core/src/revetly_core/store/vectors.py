"""The semantic leg's vectors, beside the keyword index: one SQLite file, one row per chunk.

Rows are keyed by artifact and by the digest of what was embedded (`embedding.chunks`), so a pass
re-embeds an artifact only when its text or the model changed. A read loads the matrix once per
generation (bumped by every write) and answers nearest neighbours by a dot product over unit
vectors: brute force on one thread (a BLAS thread pool's latency swings on a busy machine),
measured in bench/bench_semantic.py.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

VECTORS_FILE = "vectors.sqlite"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS digests (artifact_id TEXT PRIMARY KEY, digest TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS chunks (artifact_id TEXT NOT NULL, chunk INTEGER NOT NULL, "
    "vector BLOB NOT NULL, PRIMARY KEY (artifact_id, chunk))",
)


@dataclass(frozen=True)
class Embedded:
    """One artifact's vectors as a pass computed them."""

    artifact_id: str
    digest: str
    vectors: npt.NDArray[np.float32]


@dataclass(frozen=True)
class Matrix:
    """Every stored chunk vector, rows grouped by artifact (ids[i] owns rows starts[i]…)."""

    generation: str
    ids: list[str]
    starts: npt.NDArray[np.intp]
    rows: npt.NDArray[np.float32]


_CACHE: dict[str, Matrix] = {}
_CACHE_LOCK = threading.Lock()


class VectorStore:
    """The vectors file of one instance (`index_folder / VECTORS_FILE`, or another file of the
    same shape: the recipe's id-name vectors)."""

    def __init__(self, index_folder: Path, file: str = VECTORS_FILE) -> None:
        self.path = index_folder / file

    def present(self) -> bool:
        """Whether a pass has written the vectors file."""
        return self.path.is_file()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, check_same_thread=False)
        for statement in _SCHEMA:
            conn.execute(statement)
        return conn

    def _meta(self, key: str) -> str | None:
        """One value of the file's meta table, or None when the file or the key is absent."""
        if not self.present():
            return None
        with closing(self._connect()) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def model_id(self) -> str | None:
        """The model the stored vectors were computed with, or None when nothing is stored."""
        return self._meta("model_id")

    def digests(self) -> dict[str, str]:
        """artifact id -> the digest of what its stored vectors embed."""
        if not self.present():
            return {}
        with closing(self._connect()) as conn:
            return {str(a): str(d) for a, d in conn.execute("SELECT artifact_id, digest FROM digests")}

    def revision(self) -> int | None:
        """The corpus revision the vectors were last brought to, or None."""
        value = self._meta("revision")
        return None if value is None else int(value)

    def write(self, model_id: str, embedded: Iterable[Embedded], removed: Iterable[str],
              *, clear: bool = False, revision: int | None = None) -> None:
        """One transaction: replace the embedded artifacts' rows, drop the removed ones (or every
        row first, with clear), stamp the model and bump the generation."""
        with closing(self._connect()) as conn, conn:
            if clear:
                conn.execute("DELETE FROM chunks")
                conn.execute("DELETE FROM digests")
            for artifact_id in removed:
                conn.execute("DELETE FROM chunks WHERE artifact_id=?", (artifact_id,))
                conn.execute("DELETE FROM digests WHERE artifact_id=?", (artifact_id,))
            for item in embedded:
                conn.execute("DELETE FROM chunks WHERE artifact_id=?", (item.artifact_id,))
                conn.executemany(
                    "INSERT INTO chunks (artifact_id, chunk, vector) VALUES (?, ?, ?)",
                    [(item.artifact_id, n, np.asarray(v, dtype=np.float32).tobytes())
                     for n, v in enumerate(item.vectors)])
                conn.execute("INSERT OR REPLACE INTO digests (artifact_id, digest) VALUES (?, ?)",
                             (item.artifact_id, item.digest))
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('model_id', ?)",
                         (model_id,))
            if revision is not None:
                conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('revision', ?)",
                             (str(revision),))
            row = conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
            generation = int(row[0]) + 1 if row else 1
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)",
                         (str(generation),))

    def generation(self) -> str | None:
        """The write counter and model, read on every search to know whether the matrix moved."""
        if not self.present():
            return None
        with closing(self._connect()) as conn:
            rows = dict(conn.execute("SELECT key, value FROM meta"))
        return f"{rows.get('generation', '0')}:{rows.get('model_id', '')}"

    def matrix(self) -> Matrix | None:
        """Every stored vector, loaded once per generation and shared by every read."""
        generation = self.generation()
        if generation is None:
            return None
        key = str(self.path)
        with _CACHE_LOCK:
            cached = _CACHE.get(key)
            if cached is not None and cached.generation == generation:
                return cached
            loaded = self._load(generation)
            _CACHE[key] = loaded
            return loaded

    def _load(self, generation: str) -> Matrix:
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT artifact_id, vector FROM chunks ORDER BY artifact_id, chunk").fetchall()
        ids: list[str] = []
        starts: list[int] = []
        for n, (artifact_id, _) in enumerate(rows):
            if not ids or ids[-1] != artifact_id:
                ids.append(str(artifact_id))
                starts.append(n)
        if not rows:
            return Matrix(generation, [], np.zeros(0, dtype=np.intp),
                          np.zeros((0, 1), dtype=np.float32))
        matrix = np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])
        return Matrix(generation, ids, np.asarray(starts, dtype=np.intp), matrix)


def nearest(matrix: Matrix, query: npt.NDArray[np.float32], k: int) -> list[tuple[str, float]]:
    """The k artifacts whose best chunk is most like the query (cosine), best first, ties by id."""
    if not matrix.ids or matrix.rows.shape[1] != query.shape[-1]:
        return []
    per_chunk = np.einsum("ij,j->i", matrix.rows, query.reshape(-1))  # one thread, no BLAS pool
    per_artifact = np.maximum.reduceat(per_chunk, matrix.starts)
    k = min(k, len(matrix.ids))
    top = np.argpartition(-per_artifact, k - 1)[:k]
    ranked = sorted(((float(per_artifact[i]), matrix.ids[i]) for i in top),
                    key=lambda s: (-s[0], s[1]))
    return [(artifact_id, score) for score, artifact_id in ranked]

