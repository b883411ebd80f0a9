#!/usr/bin/env python3
"""Benchmark of the full instance: pass time and model calls per artifact against the local fake
LLM (tests/support/fake_llm.py), and read latency on a full vs a lite instance.

    python bench/bench_full.py                 # size 200
    python bench/bench_full.py --sizes 100,400

Per size it takes bench_pass.py's cached synthetic instance, copies it three times (lite;
semantic: `[embedding]` alone on the fake; full: `[llm]` and `[embedding]` on the fake), times
one full pass of lite and full in a fresh process (the full one's report carries episodes,
model calls and tokens), then asks search_context over the generator's queries and get_artifact
over the instance's ids of the three engines in one process, back to back, the order
alternating (p50/p95 per mode, median paired differences: full vs lite, and full vs semantic —
the inferred half's own share, the query embedding set aside). The fake
answers at once, so the pass numbers are graphiti-core's and Kuzu's own overhead per episode,
not a model's. Results go to bench/results/full-<size>.json; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_pass
import bench_reads
import bench_semantic

FAKE = Path(__file__).resolve().parents[1] / "tests" / "support" / "fake_llm.py"
TOKEN = "fake-llm-token"
QUERIES = 100

CHILD_PASS = """
import json, sys, time
from revetly_core import Engine
t = time.perf_counter()
out = Engine.open(sys.argv[1]).sync()
print(json.dumps({"seconds": time.perf_counter() - t, "inferred": out.get("inferred")}))
"""

CHILD_READS = """
import json, sys, time
from revetly_core import Engine
engines = {"lite": Engine.open(sys.argv[1]), "semantic": Engine.open(sys.argv[2]),
           "full": Engine.open(sys.argv[3])}
queries = json.loads(open(sys.argv[4]).read())
ids = json.loads(open(sys.argv[5]).read())
for engine in engines.values():
    engine.search_context(queries[0])
seconds = {f"{read}-{mode}": [] for read in ("search", "artifact") for mode in engines}
for read, args in (("search", queries), ("artifact", ids)):
    call = "search_context" if read == "search" else "get_artifact"
    for i, arg in enumerate(args):
        for mode in (("lite", "semantic", "full") if i % 2 == 0 else ("full", "semantic", "lite")):
            t = time.perf_counter()
            try:
                getattr(engines[mode], call)(arg)
            except Exception:
                pass
            seconds[f"{read}-{mode}"].append(time.perf_counter() - t)
print(json.dumps(seconds))
"""


def embedding_config(base: str) -> str:
    return (f'\n[embedding]\nprovider = "openai-compatible"\napi_url = "{base}/v1"\n'
            f'model = "fake-embedder"\ntoken_env = "FAKE_LLM_TOKEN"\n')


def llm_config(base: str) -> str:
    return (f'\n[llm]\nprovider = "openai-compatible"\napi_url = "{base}/v1"\n'
            f'model = "fake-extractor"\ntoken_env = "FAKE_LLM_TOKEN"\n')


def full_config(base: str) -> str:
    return llm_config(base) + embedding_config(base)


def start_fake() -> tuple[subprocess.Popen[bytes], str]:
    from tests.support.processes import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, str(FAKE), "--port", str(port), "--token", TOKEN],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    import httpx

    for _ in range(300):
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the fake LLM never answered")


@contextmanager
def fake_llm() -> Iterator[str]:
    """The local fake model server for the whole run (its base URL), stopped however it ends."""
    fake, base = start_fake()
    try:
        yield base
    finally:
        fake.terminate()
        fake.wait()


def sized_arguments(default_sizes: str, description: str | None) -> argparse.ArgumentParser:
    """The options every full-instance bench takes: --sizes, --cache-dir, --results-dir."""
    ap = argparse.ArgumentParser(description=description,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=default_sizes, type=bench_pass.parse_sizes)
    ap.add_argument("--cache-dir", type=Path, default=bench_pass.BENCH_DIR / ".cache")
    ap.add_argument("--results-dir", type=Path, default=bench_pass.BENCH_DIR / "results")
    return ap


def write_report(results_dir: Path, name: str, report: dict[str, Any]) -> None:
    """Close a size's report with the load after it, print it, and write ``name-SIZE.json``."""
    report["load_after"] = os.getloadavg()[0]
    print(f"[{report['size']}] {json.dumps(report)}", flush=True)
    (results_dir / f"{name}-{report['size']}.json").write_text(json.dumps(report, indent=1) + "\n")


def timed_pass(inst: Path) -> dict[str, Any]:
    env = {**os.environ, "FAKE_LLM_TOKEN": TOKEN}
    out = subprocess.run([sys.executable, "-c", CHILD_PASS, str(inst)], check=True,
                         capture_output=True, text=True, env=env).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def paired(seconds: dict[str, list[float]], read: str) -> dict[str, Any]:
    """p50/p95 per mode; the full instance's paired median difference against lite, and against
    the semantic-only instance (the inferred half's own share, the semantic leg set aside)."""
    lite, near, full = (seconds[f"{read}-{m}"] for m in ("lite", "semantic", "full"))

    def delta(a: list[float], b: list[float]) -> float:
        return round(statistics.median(y - x for x, y in zip(a, b, strict=True)) * 1000, 2)

    return {"lite": bench_semantic.latency(lite), "semantic": bench_semantic.latency(near),
            "full": bench_semantic.latency(full), "full_minus_lite_p50_ms": delta(lite, full),
            "full_minus_semantic_p50_ms": delta(near, full)}


def instance_ids(inst: Path) -> list[str]:
    """Every artifact id of an instance, sorted."""
    from revetly_core import Engine

    with Engine.open(inst)._store() as store:
        return sorted(store.all_ids())


def read_latencies(insts: dict[str, Path], queries: list[str], ids: list[str],
                   tmp: Path) -> dict[str, Any]:
    """search_context over the queries and get_artifact over the ids, asked of the lite,
    semantic and full engines in one fresh process (CHILD_READS), each read paired by mode."""
    (tmp / "queries.json").write_text(json.dumps(queries))
    (tmp / "ids.json").write_text(json.dumps(ids))
    env = {**os.environ, "FAKE_LLM_TOKEN": TOKEN}
    out = subprocess.run([sys.executable, "-c", CHILD_READS, str(insts["lite"]),
                          str(insts["semantic"]), str(insts["full"]), str(tmp / "queries.json"),
                          str(tmp / "ids.json")], check=True,
                         capture_output=True, text=True, env=env).stdout
    seconds = json.loads(out.strip().splitlines()[-1])
    return {"search_context": paired(seconds, "search"), "get_artifact": paired(seconds, "artifact")}


def main(argv: list[str] | None = None) -> int:
    args = sized_arguments("200", __doc__).parse_args(argv)
    gen = bench_pass.resolve_gen(None)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    with fake_llm() as base:
        for size in args.sizes:
            source, _ = bench_pass.prepare_instance(size, gen, args.cache_dir.resolve(), False)
            report: dict[str, Any] = {"size": size, "load_before": os.getloadavg()[0]}
            with tempfile.TemporaryDirectory(prefix="revetly-full-") as tmp:
                insts = {mode: bench_semantic.copy_instance(source, Path(tmp) / mode, extra)
                         for mode, extra in (("lite", ""), ("semantic", embedding_config(base)),
                                             ("full", full_config(base)))}
                lite, full = timed_pass(insts["lite"]), timed_pass(insts["full"])
                timed_pass(insts["semantic"])
                inferred = full["inferred"] or {}
                episodes = max(1, int(inferred.get("episodes", 0)))
                report["pass"] = {
                    "lite_s": round(lite["seconds"], 2), "full_s": round(full["seconds"], 2),
                    "inferred": inferred,
                    "per_1k_artifacts": {
                        "extra_seconds": round((full["seconds"] - lite["seconds"])
                                               / episodes * 1000, 1),
                        "model_calls": round(inferred.get("model_calls", 0) / episodes * 1000),
                        "prompt_tokens": round(inferred.get("prompt_tokens", 0)
                                               / episodes * 1000)}}
                report.update(read_latencies(insts, bench_reads.load_queries(gen, QUERIES),
                                             instance_ids(insts["lite"])[:QUERIES], Path(tmp)))
            write_report(args.results_dir, "full", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
