"""What the recipe leg reads, kept by the pass beside the inferred projection.

Graphiti's search recipe has two legs: BM25 over the episodes' own text (no stemming), and the
query's vector against each node's name vector. An artifact's node is named for its id, so its
name vector is the embedding of the id. The pass keeps both where a read finds them without
opening the graph: each episode's text in `inferred.sqlite`, the name vectors in NAMES_FILE.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from revetly_core.inferred.episodes import episode_text

if TYPE_CHECKING:
    from pathlib import Path

    from revetly_core.embedding.provider import Provider
    from revetly_core.store.db import Store
    from revetly_core.store.inferred import InferredStore

NAMES_FILE = "recipe_names.sqlite"
"""The artifact nodes' id-name vectors, under the index folder (a VectorStore file)."""
NAME_BATCH = 256
"""Node names one embedding request carries."""


def name_digest(model_id: str, artifact_id: str) -> str:
    """What a name vector embeds: the node's name (the artifact id) under one model."""
    return hashlib.sha256(f"{model_id}\0{artifact_id}".encode()).hexdigest()


def names_to_embed(extracted: list[str], stored: dict[str, str], model_id: str) -> list[str]:
    """The extracted artifacts whose node-name vector is missing or from another model."""
    return [i for i in extracted if stored.get(i) != name_digest(model_id, i)]


def fill_recipe(store: Store, target: InferredStore, index_folder: Path,
                provider: Provider) -> int:
    """Bring the recipe's two legs level with the extraction: episode text for any extracted
    artifact without it, a name vector for every extracted artifact, none for a removed one.
    Returns how many names were embedded."""
    import numpy as np

    from revetly_core.store.vectors import Embedded, VectorStore

    missing = target.without_text()
    held = (store.get(i) for i in missing)
    target.write_texts((a.id, episode_text(a)) for a in held if a is not None)
    names = VectorStore(index_folder, NAMES_FILE)
    extracted = sorted(target.episodes())
    stored = names.digests()
    todo = names_to_embed(extracted, stored, provider.model_id)
    removed = sorted(set(stored) - set(extracted))
    if not todo and not removed:
        return 0
    embedded: list[Embedded] = []
    for start in range(0, len(todo), NAME_BATCH):
        batch = todo[start:start + NAME_BATCH]
        vectors = provider.embed(batch)
        embedded.extend(Embedded(i, name_digest(provider.model_id, i), np.asarray(v[None, :]))
                        for i, v in zip(batch, vectors, strict=True))
    names.write(provider.model_id, embedded, removed)
    return len(todo)
