"""The link graph: a networkx MultiDiGraph of live links, cached per corpus revision."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.model import Artifact, Link
from revetly_core.store.db import Store
from revetly_core.store.graph import GraphCache, build_graph

T0 = "2024-01-01T00:00:00+00:00"


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "context.db")
    s.upsert_artifacts([
        Artifact("STORY-1", "story", "One", "repository", "acme", status="ready"),
        Artifact("DEC-1", "decision", "Two", "repository", "acme"),
        Artifact("STORY-2", "story", "Gone", "repository", "acme", deleted=True),
        Artifact("c0ffee", "commit", "Fix", "commits/code", "acme"),
    ], T0)
    s.state_links([
        Link("STORY-1", "DEC-1", "cites", "declared"),
        Link("STORY-1", "DEC-1", "references", "explicit-ref"),
        Link("c0ffee", "STORY-1", "references", "explicit-ref", (("in", "subject"),)),
        Link("STORY-1", "STORY-9", "references", "explicit-ref"),
        Link("DEC-1", "STORY-2", "mentions", "title-mention"),
    ], T0)
    s.retire_links([("DEC-1", "STORY-2", "mentions", "title-mention")], T0)
    yield s  # type: ignore[misc]
    s.close()


def test_nodes_carry_type_kind_status_and_deleted(store: Store) -> None:
    g = build_graph(store)
    assert g.nodes["STORY-1"] == {"type": "story", "kind": "work-item", "status": "ready",
                                  "deleted": False}
    assert g.nodes["STORY-2"]["deleted"] is True
    assert g.nodes["c0ffee"]["kind"] == "commit"


def test_edges_are_the_live_links_keyed_by_relation_and_method(store: Store) -> None:
    g = build_graph(store)
    assert g.number_of_edges() == 4
    assert set(g["STORY-1"]["DEC-1"]) == {("cites", "declared"), ("references", "explicit-ref")}
    edge = g["c0ffee"]["STORY-1"][("references", "explicit-ref")]
    assert edge == {"relation": "references", "method": "explicit-ref",
                    "detail": {"in": "subject"}}
    assert not g.has_edge("DEC-1", "STORY-2")  # retired


def test_a_dangling_link_adds_its_target_as_a_bare_node(store: Store) -> None:
    g = build_graph(store)
    assert g.has_edge("STORY-1", "STORY-9")
    assert g.nodes["STORY-9"] == {}


def test_the_cache_rebuilds_only_when_the_revision_moves(store: Store) -> None:
    cache = GraphCache()
    first = cache.get(store)
    assert cache.get(store) is first
    store.state_links([Link("DEC-1", "STORY-1", "related", "declared")], T0)
    assert cache.get(store) is first  # same revision: the cached graph is served
    store.set_meta("corpus_revision", "1")
    second = cache.get(store)
    assert second is not first
    assert second.has_edge("DEC-1", "STORY-1")
