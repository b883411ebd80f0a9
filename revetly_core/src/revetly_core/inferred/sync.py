"""The read pass's inferred step: feed each new or changed artifact to Graphiti as an episode.

Keyed by artifact id: a changed artifact's old episode is removed before its new one is added,
and a full pass (or a torn graph) rebuilds the graph from CONTEXT, so the inferred graph is a
cache of CONTEXT and never a source of truth. A provider that fails stops the step and degrades
the inferred half only: the pass succeeds, what was extracted stays served, and the artifacts not
yet extracted are pending (the next pass retries them); context_health names it.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from revetly_core.inferred.episodes import Episode, episode_of
from revetly_core.inferred.instance import GRAPH_FILE, GRAPH_FOLDER, is_full
from revetly_core.llm.usage import Usage
from revetly_core.model import Artifact
from revetly_core.refusal import Refusal
from revetly_core.store.inferred import Extracted, InferredStore

if TYPE_CHECKING:
    from revetly_core.config import Config
    from revetly_core.inferred.engine import InferredGraph
    from revetly_core.store.db import Store

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class InferredCounts:
    """What one pass did to the inferred half (`revetly sync` reports it)."""

    episodes: int = 0
    kept: int = 0
    removed: int = 0
    pending: int = 0
    rebuilt: bool = False
    usage: Usage = field(default_factory=Usage)
    error: str | None = None

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"episodes": self.episodes, "kept": self.kept,
                               "removed": self.removed, "pending": self.pending,
                               "rebuilt": self.rebuilt, **self.usage.payload()}
        if self.error is not None:
            out["degraded"] = {"error": self.error,
                               "note": "the inferred half only: stated reads are unaffected; "
                                       "the next `revetly sync` retries the pending artifacts"}
        return out


def run_async(step: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end from synchronous code, on a thread of its own where the caller
    already runs an event loop (the MCP server's sync)."""
    import asyncio  # here: a pass on a lite instance never loads the event loop's modules

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(step)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(step)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=work, name="revetly-inferred")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def removed_episodes(changed: set[str], stored: dict[str, tuple[str, str]],
                     held: set[str]) -> list[str]:
    """The changed artifacts whose episode goes: those CONTEXT no longer holds. A withdrawn
    artifact (held, marked deleted) keeps its extraction, which reads demote and mark
    sources_retired, never remove."""
    return sorted(i for i in changed if i in stored and i not in held)


def pending_episodes(artifacts: Iterable[Artifact], stored: dict[str, tuple[str, str]],
                     model: str) -> list[Episode]:
    """The episodes whose text, time or model differ from what was extracted (new ones too)."""
    out = []
    for a in artifacts:
        episode = episode_of(a, model)
        prior = stored.get(a.id)
        if prior is None or prior[1] != episode.digest:
            out.append(episode)
    return out


async def feed(graph: InferredGraph, episodes: list[Episode], stored: dict[str, tuple[str, str]],
               known: set[str], target: InferredStore, counts: InferredCounts) -> None:
    """Each episode in turn: its old extraction removed, the new one added and written. The first
    failure stops the step; the rest stay pending."""
    from revetly_core.inferred.engine import held_resolver

    held = held_resolver(known)
    if target.meta().get("indexed") != "1":  # a new graph: graphiti's fulltext indices first
        await graph.prepare()
        target.set_meta({"indexed": "1"})
    for n, episode in enumerate(episodes):
        try:
            prior = stored.get(episode.artifact_id)
            if prior is not None:
                await graph.remove(prior[0])
            extracted: Extracted = await graph.add(episode, held)
        except Exception as exc:  # the provider (5xx, garbage) fails the inferred half only
            counts.error = f"{episode.artifact_id}: {type(exc).__name__}: {exc}"[:500]
            counts.pending = len(episodes) - n
            log.warning("inferred extraction stopped (the next pass retries): %s", counts.error)
            return
        target.write([replace(extracted, text=episode.body)], [])
        counts.episodes += 1


def pass_inferred(store: Store, index_folder: Path, config: Config, changed: set[str],
                  revision: int, *, full: bool) -> InferredCounts | None:
    """The pass's inferred step (None on a lite instance: nothing opened, nothing imported)."""
    if not is_full(config) or config.llm is None:
        return None
    target = InferredStore(index_folder)
    folder = index_folder / GRAPH_FOLDER
    counts = InferredCounts()
    rebuild = full or not (folder / GRAPH_FILE).exists() or target.meta().get("revision") is None
    try:
        from revetly_core.embedding.resolve import open_provider
        from revetly_core.inferred.engine import open_graph
        from revetly_core.inferred.recipe import fill_recipe

        provider = open_provider(config.embedding)
        if provider is None:
            return None
        if rebuild:
            shutil.rmtree(folder, ignore_errors=True)
            target.clear()
            target.set_meta({"indexed": None})
            counts.rebuilt = True
        stored = target.episodes()
        live = {a.id: a for a in (store.get(i) for i in sorted(changed))
                if a is not None and not a.deleted}
        known = set(store.all_ids())
        gone = removed_episodes(changed, stored, known)
        retrying = bool(target.meta().get("error"))
        docs: Iterable[Artifact] = (store.artifacts() if rebuild or retrying
                                    else list(live.values()))
        episodes = pending_episodes(docs, stored, config.llm.model or "")
        folder.mkdir(parents=True, exist_ok=True)
        graph = open_graph(folder / GRAPH_FILE, config, counts.usage, provider)

        async def step() -> None:
            try:
                for artifact_id in gone:
                    await graph.remove(stored[artifact_id][0])
                await feed(graph, episodes, stored, known, target, counts)
            finally:
                await graph.close()

        run_async(step())
        target.write([], gone)
        counts.removed = len(gone)
        counts.kept = target.episode_count() - counts.episodes
        if counts.error is None:  # a failing provider is not asked again this pass
            fill_recipe(store, target, index_folder, provider)
    except Refusal as refusal:
        counts.error = f"{refusal.code}: {refusal.detail}"
    except Exception as exc:  # a derived index: never the pass's failure
        counts.error = f"{type(exc).__name__}: {exc}"[:500]
        log.warning("inferred half not updated (the next pass retries): %s", counts.error)
    target.set_meta({"revision": str(revision), "error": counts.error,
                     "pending": str(counts.pending), **spent_totals(target.meta(), counts)})
    return counts


SPENT_KEYS = ("spent_episodes", "spent_model_calls", "spent_prompt_tokens",
              "spent_completion_tokens")
"""The running totals an inferred backfill is priced from (`inferred.price`)."""


def spent_totals(meta: dict[str, str], counts: InferredCounts) -> dict[str, str | None]:
    """The running totals with this pass's episodes, calls and tokens added."""
    added = (counts.episodes, counts.usage.calls, counts.usage.prompt_tokens,
             counts.usage.completion_tokens)
    return {key: str(int(meta.get(key, "0")) + n) for key, n in zip(SPENT_KEYS, added, strict=True)}
