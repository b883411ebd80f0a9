"""End to end through the core API: search leaves a receipt, inspect returns its exact passage."""

from __future__ import annotations

from revetly_core import RagQuery
from tests.core.governed.governed_world import World


def test_search_then_inspect_returns_the_retained_passage(world: World) -> None:
    receipt = world.rag.search(world.session, RagQuery("law", "filing deadline"), idempotency_key="k1")
    assert receipt["receipt_id"].startswith("rcpt-")
    assert receipt["hits"][0]["document_id"] == "filing"
    first = receipt["hits"][0]
    shown = world.rag.inspect(world.session, receipt["receipt_id"], first["document_id"], first["chunk_id"])
    assert shown["hit"] == first
    assert shown["retained"] is True
