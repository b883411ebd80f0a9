"""What every embedding provider is: a name for the rows it reaches and a batch embedder."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
"""One row per text, unit length (so a dot product is the cosine)."""


class Provider(Protocol):
    """An opened provider (`resolve.open_provider`)."""

    @property
    def model_id(self) -> str:
        """Names the model and its dimensions: stored vectors are keyed by it."""
        ...

    @property
    def method(self) -> str:
        """The method a row the semantic leg alone reached carries."""
        ...

    def embed(self, texts: list[str]) -> Vectors:
        """Unit vectors for the texts, in order (raises `Refusal` when the provider fails)."""
        ...


def unit_rows(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Each row scaled to unit length (a zero row stays zero), as float32."""
    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim != 2:
        rows = rows.reshape(len(rows), -1)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(rows / norms, dtype=np.float32)
