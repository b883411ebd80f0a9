"""SQLiteRagProvider imports cost what they add: the cached RAM index is extended, not rebuilt."""

from __future__ import annotations

import time

import pytest
from revetly_core.governed.provider_sqlite import docs_partition

from revetly_core import RagHit, RagQuery, RagSource, Refusal, SQLiteRagProvider
from tests.core.governed.governed_world import World

WORDS = ("filing", "parking", "harbour", "permit", "ledger", "tariff", "quay", "levy")


def _batch(source: RagSource, start: int, count: int) -> list[RagHit]:
    return [RagHit.make(source, f"doc-{n:04d}", "c1",
                        f"{WORDS[n % len(WORDS)]} rule number {n} {WORDS[(n * 3) % len(WORDS)]}",
                        f"Doc {n}") for n in range(start, start + count)]


def _answer(provider: SQLiteRagProvider, source: RagSource, text: str) -> list[tuple[str, str, float | None]]:
    hits = provider.search(source, RagQuery("law", text, limit=50), deadline=time.monotonic() + 30)
    return [(h.document_id, h.chunk_id, h.score) for h in hits]


def test_an_import_extends_the_cached_index_instead_of_rebuilding_it(world: World) -> None:
    world.provider.put_documents(world.owner, world.source, _batch(world.source, 0, 30))
    index = world.provider._indexes[docs_partition(world.source)]
    world.provider.put_documents(world.owner, world.source, _batch(world.source, 30, 30))
    assert world.provider._indexes[docs_partition(world.source)] is index
    assert len(index.hits) == 4 + 60
    assert index.records == world.evidence.usage(docs_partition(world.source))["records"]


def test_the_extended_index_answers_exactly_as_one_rebuilt_from_the_vault(world: World) -> None:
    for start in range(0, 90, 30):
        world.provider.put_documents(world.owner, world.source, _batch(world.source, start, 30))
    rebuilt = SQLiteRagProvider(world.feedback)
    for text in ("filing", "harbour levy", "rule number 7", "quay permit tariff"):
        assert _answer(world.provider, world.source, text) == _answer(rebuilt, world.source, text)
        assert _answer(world.provider, world.source, text)


def test_passages_another_provider_appended_are_seen_on_the_next_import(world: World) -> None:
    other = SQLiteRagProvider(world.feedback)
    other.put_documents(world.owner, world.source, _batch(world.source, 0, 10))
    world.provider.put_documents(world.owner, world.source, _batch(world.source, 10, 10))
    index = world.provider._indexes[docs_partition(world.source)]
    assert len(index.hits) == 4 + 20
    found = world.provider.inspect(world.source, "doc-0003", "c1", deadline=time.monotonic() + 30)
    assert found.passage == "permit rule number 3 parking"


def test_a_passage_given_twice_in_one_batch_with_other_text_is_refused(world: World) -> None:
    first, second = _batch(world.source, 0, 2)
    clash = RagHit.make(world.source, first.document_id, first.chunk_id, "other words", "Doc 0")
    with pytest.raises(Refusal) as refused:
        world.provider.put_documents(world.owner, world.source, [first, second, clash])
    assert refused.value.code == "revision_required"
    again = world.provider.put_documents(world.owner, world.source, [first, second, first])
    assert (again["added"], again["unchanged"]) == (2, 1)
