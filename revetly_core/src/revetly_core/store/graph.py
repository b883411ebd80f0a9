"""The graph of declared links, built from the store on demand, cached per corpus revision."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from revetly_core.store.db import Store


class GraphCache:
    """Holds one networkx MultiDiGraph per corpus revision for the life of an engine."""

    def __init__(self) -> None:
        self._revision: int | None = None
        self._graph: Any = None

    def get(self, store: Store) -> Any:
        """The graph of live links at the store's current revision (built if stale)."""
        revision = store.revision
        if self._graph is None or self._revision != revision:
            self._graph = build_graph(store)
            self._revision = revision
        return self._graph


def build_graph(store: Store) -> Any:
    """Nodes are artifacts (with type, kind, deleted); edges are live links with their method."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for row in store.conn.execute("SELECT id, type, kind, status, deleted FROM artifacts"):
        g.add_node(row[0], type=row[1], kind=row[2], status=row[3], deleted=bool(row[4]))
    for row in store.conn.execute(
        "SELECT src, dst, relation, method, detail FROM links WHERE invalid_at IS NULL"
    ):
        g.add_edge(row[0], row[1], key=(row[2], row[3]), relation=row[2], method=row[3],
                   detail=json.loads(row[4]))
    return g
