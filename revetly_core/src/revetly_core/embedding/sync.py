"""The read pass's vector step: embed what changed, keyed by content hash, drop what went."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from revetly_core.embedding.chunks import chunks_digest, embedding_chunks
from revetly_core.model import Artifact
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.config import Config
    from revetly_core.embedding.provider import Provider
    from revetly_core.store.db import Store
    from revetly_core.store.vectors import Embedded, VectorStore

log = logging.getLogger(__name__)

WRITE_EVERY = 1_000
"""Artifacts embedded per write (bounds the memory one pass holds)."""


@dataclass
class VectorCounts:
    """What one pass did to the vectors: embedded, kept (digest unchanged), removed."""

    embedded: int = 0
    kept: int = 0
    removed: int = 0


def pending(artifacts: Iterable[Artifact], stored: dict[str, str],
            model_id: str) -> Iterator[tuple[Artifact, list[str], str]]:
    """(artifact, chunks, digest) for each artifact whose embedded text is not what is stored."""
    for a in artifacts:
        chunks = embedding_chunks(a.title, a.body)
        digest = chunks_digest(model_id, chunks)
        if stored.get(a.id) != digest:
            yield a, chunks, digest


def embed_batch(provider: Provider, batch: list[tuple[Artifact, list[str], str]]) -> list[Embedded]:
    """One provider call for every chunk of the batch, split back per artifact."""
    vectors = provider.embed([c for _, chunks, _ in batch for c in chunks])
    from revetly_core.store.vectors import Embedded

    out: list[Embedded] = []
    at = 0
    for a, chunks, digest in batch:
        out.append(Embedded(a.id, digest, vectors[at : at + len(chunks)]))
        at += len(chunks)
    return out


def update_vectors(vectors: VectorStore, provider: Provider, artifacts: Iterable[Artifact],
                   removed: set[str], *, every: bool, revision: int | None = None) -> VectorCounts:
    """Bring the vectors to the artifacts given: with `every` they are all of them and any other
    stored row goes; otherwise they are the pass's changed ones and `removed` the ones it dropped.
    A new model clears every stored row first."""
    counts = VectorCounts()
    clear = vectors.model_id() not in (None, provider.model_id)
    stored = {} if clear else vectors.digests()
    seen: set[str] = set()
    batch: list[tuple[Artifact, list[str], str]] = []
    for a in artifacts:
        seen.add(a.id)
        batch.extend(pending([a], stored, provider.model_id))
        if len(batch) >= WRITE_EVERY:
            vectors.write(provider.model_id, embed_batch(provider, batch), [], clear=clear)
            counts.embedded += len(batch)
            batch, clear = [], False
    gone = (set(removed) | (set(stored) if every else set())) - seen
    dropped = sorted(gone & set(stored))
    vectors.write(provider.model_id, embed_batch(provider, batch) if batch else [], dropped,
                  clear=clear, revision=revision)
    counts.embedded += len(batch)
    counts.removed = len(dropped)
    counts.kept = len(seen) - counts.embedded
    return counts


def pass_vectors(store: Store, index_folder: Path, config: Config, changed: set[str],
                 revision: int, *, full: bool) -> VectorCounts | None:
    """The pass's vector step (nothing on a lite instance). Vectors are a cache like the keyword
    index: a provider that fails is logged and the next pass brings them up to date."""
    from revetly_core.embedding.resolve import open_provider

    try:
        provider = open_provider(config.embedding)
        if provider is None:
            return None
        from revetly_core.store.vectors import VectorStore  # numpy: only where vectors are kept

        vectors = VectorStore(index_folder)
        stamped = vectors.revision()
        every = full or stamped != (revision - 1 if changed else revision)
        if every:
            return update_vectors(vectors, provider, store.artifacts(), set(), every=True,
                                  revision=revision)
        docs = [a for a in (store.get(i) for i in sorted(changed)) if a is not None]
        return update_vectors(vectors, provider, docs, changed - {a.id for a in docs},
                              every=False, revision=revision)
    except Refusal as refusal:
        log.warning("vectors not updated (the next pass retries): %s", refusal)
        return None
    except Exception as exc:  # a cache, like the keyword index: never the pass's failure
        log.warning("vectors not updated (the next pass retries): %s: %s",
                    type(exc).__name__, exc)
        return None
