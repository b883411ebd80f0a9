"""Which instance this is: full where both sinks name a real provider, lite otherwise."""

from __future__ import annotations

from typing import TYPE_CHECKING

from revetly_core.embedding.settings import declared as embedding_declared
from revetly_core.llm.settings import declared as llm_declared

if TYPE_CHECKING:
    from revetly_core.config import Config

GRAPH_FOLDER = "graph"
"""The folder of the embedded graph database, under the instance's index folder (a cache of
CONTEXT: removing it makes the next pass rebuild the graph)."""
GRAPH_FILE = "graph.kuzu"
"""The Kuzu database file (and its write-ahead log) inside GRAPH_FOLDER."""


def is_full(config: Config) -> bool:
    """A full instance declares a real [llm] and a real [embedding] provider; anything else is
    lite, and every inferred key reads absent with the reason lite."""
    return llm_declared(config.llm) and embedding_declared(config.embedding)
