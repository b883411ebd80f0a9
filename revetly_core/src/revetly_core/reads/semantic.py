"""The semantic leg: the query's vector against every artifact's best chunk, ranked by cosine.

Off on a lite instance (no [embedding]). Its rows are scored by rank (`by_rank`), and that score
is added to what the keyword legs gave the row (`add_leg`); a row it alone reached carries the
provider's method, never a keyword one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from revetly_core.embedding.resolve import open_provider
from revetly_core.embedding.settings import declared
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.config import Config
    from revetly_core.embedding.provider import Vectors


def semantic_method(config: Config) -> str:
    """The method a row the semantic leg alone reached carries (the provider's own name)."""
    provider = open_provider(config.embedding)
    return "" if provider is None else provider.method


def query_vector(config: Config, query: str) -> Vectors | None:
    """The query's unit vector from the [embedding] provider (None on a lite instance): asked
    once where two legs read it (the semantic leg and the recipe's node leg)."""
    provider = open_provider(config.embedding)
    return None if provider is None else provider.embed([query])[0]


def semantic_hits(config: Config, index_folder: Path, query: str,
                  pool: int, vector: Vectors | None = None) -> list[tuple[str, float]]:
    """(id, cosine) of the pool artifacts nearest the query, best first; [] on a lite instance.
    Vectors a pass has not written yet are refused as not-synced, like a missing keyword index.
    `vector` is the query's, where the caller already asked for it."""
    if not declared(config.embedding):
        return []
    from revetly_core.store.vectors import VectorStore, nearest

    provider = open_provider(config.embedding)
    assert provider is not None
    matrix = VectorStore(index_folder).matrix()
    if matrix is None:
        raise Refusal("not-synced", "the semantic leg's vectors are missing",
                      "run `revetly sync` (it computes them)")
    return nearest(matrix, provider.embed([query])[0] if vector is None else vector, pool)


def by_rank(hits: list[tuple[str, float]], offset: int) -> list[tuple[str, float]]:
    """The leg's rows scored 1 / (offset + rank): fused by rank, never by the cosine's scale."""
    return [(artifact_id, 1.0 / (offset + rank)) for rank, (artifact_id, _) in
            enumerate(hits, start=1)]


def semantic_leg(config: Config, index_folder: Path, query: str,
                 pool: int, vector: Vectors | None = None) -> list[tuple[str, float]]:
    """The semantic leg as search fuses it: its pool by rank under the 1/(10+rank) rule."""
    from revetly_core.reads.retrieval import RANK_OFFSET

    return by_rank(semantic_hits(config, index_folder, query, pool, vector), RANK_OFFSET)


def add_leg(fused: dict[str, tuple[float, frozenset[int]]], scored: list[tuple[str, float]],
            leg: int) -> None:
    """Add the semantic leg's score to each row's fused score and record the leg: a row the
    words and the meaning both point at outranks one only the words found (measured, ADR 0022)."""
    for artifact_id, score in scored:
        prior, legs = fused.get(artifact_id, (0.0, frozenset()))
        fused[artifact_id] = (prior + score, legs | {leg})
