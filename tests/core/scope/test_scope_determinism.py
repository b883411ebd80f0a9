"""The same graph gives the same bytes, read after read and engine after engine."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from revetly_core.engine import Engine

from tests.core.scope.corpus import Corpus

READS: dict[str, Callable[[Engine], dict[str, Any]]] = {
    "binding-artifact": lambda e: e.get_scope("binding", artifact_id="FEAT-0002"),
    "binding-topic": lambda e: e.get_scope("binding", topic="ledger exports"),
    "binding-path": lambda e: e.get_scope("binding", path="src/app/csv_export.py"),
    "drift": lambda e: e.get_scope("drift"),
    "deltas": lambda e: e.get_scope("deltas"),
    "deltas-ingest": lambda e: e.get_scope("deltas", clock="ingest"),
    "author": lambda e: e.get_authoring_context("export the ledger"),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_the_same_graph_gives_the_same_bytes(corpus: Corpus, name: str) -> None:
    read = READS[name]
    first = json.dumps(read(corpus.engine()), ensure_ascii=False).encode()
    warm = corpus.engine()
    read(warm)
    assert json.dumps(read(warm), ensure_ascii=False).encode() == first
    assert json.dumps(read(corpus.engine()), ensure_ascii=False).encode() == first
