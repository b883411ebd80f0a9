"""search_context's recipe leg on a full instance: Graphiti's search recipe, read back from the
pass's copies (`inferred.recipe`), fused with the engine's own legs at half weight.

The recipe has two legs of its own: BM25 over the episodes' text with no stemming, and the
query's vector against each artifact node's name vector, the node being named for the artifact's
id. Neither matches on an artifact's meaning, so a row only the recipe reached is labelled as
what it is (RECIPE_METHOD), never as semantic. Off on a lite instance: nothing here is called.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from revetly_core.store.stopwords import STOPWORDS

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np
    import numpy.typing as npt

    from revetly_core.store.inferred import InferredStore

RECIPE_METHOD = "graph recipe (BM25 + id-name vector)"
"""The method of an artifacts row only the recipe reached."""
RECIPE_PASSAGE_METHOD = "graph recipe (BM25)"
"""The method of a passage of a row only the recipe reached (a passage has no node vector)."""
NODE_MIN_SCORE = 0.6
"""The cosine a node's name vector must reach to count (graphiti-core's own default floor for
its similarity search)."""
RRF_OFFSET = 1
"""The recipe orders its two legs' rows by reciprocal rank, 1 / (RRF_OFFSET + rank - 1) summed,
as graphiti-core's RRF reranker does."""

_TERM = re.compile(r"\w+")


def recipe_terms(query: str) -> list[str]:
    """The query's words as written (lowercased, no stemming), stopwords and one-letter words
    left out, each once: what the recipe's BM25 leg asks for."""
    seen: dict[str, None] = {}
    for m in _TERM.finditer(query.lower()):
        word = m.group(0)
        if word not in STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    return list(seen)


def episode_hits(inferred: InferredStore, query: str, pool: int) -> list[str]:
    """The artifacts whose episode text carries the query's words (BM25, no stemming), best
    first."""
    return [artifact_id for artifact_id, _ in
            inferred.episodes_matching(recipe_terms(query), pool)]


def node_hits(index_folder: Path, vector: npt.NDArray[np.float32] | None, pool: int) -> list[str]:
    """The artifacts whose node name (their id) embeds nearest the query, at NODE_MIN_SCORE or
    above, best first; none without a query vector or before a pass wrote the names."""
    if vector is None:
        return []
    from revetly_core.inferred.recipe import NAMES_FILE
    from revetly_core.store.vectors import VectorStore, nearest

    matrix = VectorStore(index_folder, NAMES_FILE).matrix()
    if matrix is None:
        return []
    return [i for i, cosine in nearest(matrix, vector, pool) if cosine >= NODE_MIN_SCORE]


def recipe_order(episodes: list[str], nodes: list[str]) -> list[str]:
    """The recipe's own order of its two legs' rows: reciprocal rank summed, ties by id."""
    scores: dict[str, float] = {}
    for leg in (episodes, nodes):
        for rank, artifact_id in enumerate(leg):
            scores[artifact_id] = scores.get(artifact_id, 0.0) + 1.0 / (RRF_OFFSET + rank)
    return sorted(scores, key=lambda i: (-scores[i], i))


def recipe_leg(inferred: InferredStore, index_folder: Path, query: str,
               vector: npt.NDArray[np.float32] | None, pool: int) -> list[tuple[str, float]]:
    """The recipe leg as search fuses it: its rows by rank under the 1 / (10 + rank) rule."""
    from revetly_core.reads.retrieval import RANK_OFFSET

    order = recipe_order(episode_hits(inferred, query, pool), node_hits(index_folder, vector, pool))
    return [(artifact_id, 1.0 / (RANK_OFFSET + rank))
            for rank, artifact_id in enumerate(order[:pool], start=1)]


def add_recipe_leg(fused: dict[str, tuple[float, frozenset[int]]],
                   scored: list[tuple[str, float]], share: float, leg: int) -> None:
    """Fuse the recipe with the engine's legs at its share of the keyword leg's weight (its best
    row counts `share` against the keyword leg's best): a row both reached stands at the better
    of the two, never their sum."""
    from revetly_core.reads.retrieval import relative_scores

    for artifact_id, score in relative_scores(scored, share):
        prior, legs = fused.get(artifact_id, (0.0, frozenset()))
        fused[artifact_id] = (max(prior, score), legs | {leg})
