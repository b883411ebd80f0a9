#!/usr/bin/env python3
"""Read latency of a full instance against a lite one at 10k artifacts, side by side.

    python bench/bench_full_reads.py                 # size 10000
    python bench/bench_full_reads.py --sizes 2000

Extracting 10k episodes through graphiti-core against the fake LLM takes hours (about 16 chat
calls and ~1.9 s per episode: bench_full.py), so this bench does not run graphiti. A read on a
full instance never opens the graph: it reads `inferred.sqlite` and the recipe's name vectors
only. So the full instance here is the lite one's corpus with `[embedding]` and `[llm]` on the
local fake, whose inferred copy is filled by a cheap deterministic extraction of the shape
graphiti's pipeline gives against that fake (`synthetic_extraction`: the fake's own entity and
edge rules, applied to each episode's text directly) and whose recipe copies are filled by the
engine's own `fill_recipe`. The read latency measured is the engine's; the extraction is not
graphiti's and is not measured.

Per size: the cached synthetic instance (bench_pass.py) is copied twice; lite and semantic
(`[embedding]` on the fake) each get one full pass; the full instance is a copy of the semantic
one after its pass with `[llm]` added and the inferred copy filled. Then search_context over the
generator's queries and get_artifact over the instance's ids are asked of the three engines in
one process, back to back, the order alternating (bench_full.CHILD_READS). Results go to
bench/results/full-reads-<size>.json; see bench/README.md.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_full
import bench_pass
import bench_reads
import bench_semantic

QUERIES = 200
KINDS = {"decision": 1, "constraint": 2, "assumption": 3}
"""The entity types the engine declares, as the fake numbers them."""
TYPE_NAMES = {1: "Decision", 2: "Constraint", 3: "Assumption"}
WRITE_BATCH = 500


def synthetic_extraction(inst: Path, model: str) -> int:
    """Fill the instance's inferred copy from each artifact's episode text by the fake LLM's
    own rules (entities: ids then capitalised phrases; a fact from the first entity to each
    other; summaries: the first sentence naming the entity), as graphiti's pipeline against the
    fake projects them. Returns how many episodes were written."""
    from revetly_core.inferred.engine import held_resolver
    from revetly_core.inferred.episodes import episode_of
    from revetly_core.store.inferred import Extracted, InferredLink, InferredStore

    from revetly_core import Engine
    from tests.support import fake_llm

    engine = Engine.open(inst)
    target = InferredStore(engine.paths.index)
    target.clear()
    written = 0
    with engine._store() as store:
        held = held_resolver(set(store.all_ids()))
        batch: list[Extracted] = []
        for a in store.artifacts():
            if a.deleted:
                continue
            episode = episode_of(a, model)
            found = fake_llm.entities(episode.body)
            if not found or found[0] != a.id:
                found = [a.id, *(e for e in found if e != a.id)][:8]
            edges = fake_llm.edges(found, episode.body)
            links = [InferredLink(e["target_entity_name"], held(e["target_entity_name"]),
                                  e["relation_type"], e["fact"]) for e in edges]
            types = sorted({TYPE_NAMES[n] for e in found
                            if (n := fake_llm.type_of(e, episode.body, KINDS)) in TYPE_NAMES})
            concepts = [(e, fake_llm.first_sentence_naming(e, episode.body)) for e in found[1:]
                        if held(e) is None]
            batch.append(Extracted(
                a.id, f"synthetic-{a.id}", episode.digest,
                fake_llm.first_sentence_naming(a.id, episode.body), types, links, concepts,
                episode.body))
            if len(batch) >= WRITE_BATCH:
                target.write(batch, [])
                written += len(batch)
                batch = []
        target.write(batch, [])
        written += len(batch)
        from revetly_core.embedding.resolve import open_provider
        from revetly_core.inferred.recipe import fill_recipe

        provider = open_provider(engine.config.embedding)
        assert provider is not None
        fill_recipe(store, target, engine.paths.index, provider)
    return written


def full_answers(inst: Path, gen: bench_pass.Generator) -> dict[str, int]:
    """One search and one get_artifact on the full instance, checked to answer its inferred
    half (the timed loop swallows refusals, so a refusing instance would time as fast)."""
    from revetly_core import Engine

    engine = Engine.open(inst)
    found = engine.search_context(bench_reads.load_queries(gen, 1)[0])
    if not isinstance(found["concepts"], list):
        raise SystemExit(f"bench: the full instance answered lite: {found['concepts']}")
    first = found["artifacts"][0]["artifact_id"] if found["artifacts"] else None
    brief = engine.get_artifact(first) if first else {}
    return {"artifacts": len(found["artifacts"]), "concepts": len(found["concepts"]),
            "inferred_facts": int(found["inferred_facts"].get("served", 0)),
            "recipe_rows": sum(1 for r in found["artifacts"] if r["method"].startswith("graph")),
            "brief_has_inferred_summary": int("inferred_summary" in brief)}


def main(argv: list[str] | None = None) -> int:
    args = bench_full.sized_arguments("10000", __doc__).parse_args(argv)
    gen = bench_pass.resolve_gen(None)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    os.environ["FAKE_LLM_TOKEN"] = bench_full.TOKEN
    with bench_full.fake_llm() as base:
        for size in args.sizes:
            source, _ = bench_pass.prepare_instance(size, gen, args.cache_dir.resolve(), False)
            report: dict[str, Any] = {"size": size, "load_before": os.getloadavg()[0]}
            with tempfile.TemporaryDirectory(prefix="revetly-full-reads-") as tmp:
                insts = {mode: bench_semantic.copy_instance(source, Path(tmp) / mode, extra)
                         for mode, extra in (("lite", ""),
                                             ("semantic", bench_full.embedding_config(base)))}
                report["pass_s"] = {mode: round(bench_full.timed_pass(inst)["seconds"], 1)
                                    for mode, inst in insts.items()}
                insts["full"] = Path(tmp) / "full"
                shutil.copytree(insts["semantic"], insts["full"])
                toml = insts["full"] / "revetly.toml"
                toml.write_text(toml.read_text(encoding="utf-8") + bench_full.llm_config(base),
                                encoding="utf-8")
                t = time.perf_counter()
                report["episodes"] = synthetic_extraction(insts["full"], "fake-extractor")
                report["fill_s"] = round(time.perf_counter() - t, 1)
                report["full_answers"] = full_answers(insts["full"], gen)
                queries = bench_reads.load_queries(gen, QUERIES)
                every = bench_full.instance_ids(insts["lite"])
                report["load_reads"] = os.getloadavg()[0]
                report.update(bench_full.read_latencies(
                    insts, queries, every[:: max(1, len(every) // QUERIES)][:QUERIES], Path(tmp)))
            bench_full.write_report(args.results_dir, "full-reads", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
