#!/usr/bin/env python3
"""Benchmark of the semantic leg: pass time and search latency with and without `[embedding]`.

    python bench/bench_semantic.py                  # size 10000
    python bench/bench_semantic.py --sizes 1000
    python bench/bench_semantic.py --index-rows 100000,200000   # brute-force nearest at that many

Per size it takes bench_pass.py's cached synthetic instance, copies it twice (lite, and with
`[embedding] provider = "local"`), and times, in a fresh process per pass, full passes of the
two copies interleaved (--rounds each; median wall and CPU) and a one-file incremental pass;
then search_context over the generator's queries with both engines in one process, each query
asked of both back to back (p50 and p95 per mode, and the median per-query difference).
It also times the vector index alone (numpy brute force over unit float32 rows) at
--index-rows random vectors. Results go to bench/results/semantic-<size>.json; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_pass
import bench_reads

QUERIES = 200
LOCAL = '\n[embedding]\nprovider = "local"\n'

CHILD_PASS = """
import sys, time
from revetly_core import Engine
t = time.perf_counter()
Engine.open(sys.argv[1]).sync()
print(time.perf_counter() - t)
"""

CHILD_SEARCH = """
import json, sys, time
from revetly_core import Engine
engines = {"lite": Engine.open(sys.argv[1]), "local": Engine.open(sys.argv[2])}
queries = json.loads(open(sys.argv[3]).read())
for engine in engines.values():
    engine.search_context(queries[0])
seconds = {"lite": [], "local": []}
for i, q in enumerate(queries):
    for mode in (("lite", "local") if i % 2 == 0 else ("local", "lite")):
        t = time.perf_counter()
        try:
            engines[mode].search_context(q)
        except Exception:
            pass
        seconds[mode].append(time.perf_counter() - t)
print(json.dumps(seconds))
"""
"""Both engines in one process, each query asked of both back to back (the order alternating),
so the machine's load falls on both sides of every pair alike."""


def child(code: str, *args: str) -> str:
    """Run code in a fresh interpreter (imports and caches cold, as a shell starts)."""
    return subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True,
                          text=True).stdout.strip().splitlines()[-1]


def timed_child(code: str, *args: str) -> tuple[float, float]:
    """(seconds the child printed, CPU seconds the kernel charged it and its threads)."""
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"pass child failed: {out[-500:]}")
    return float(out.strip().splitlines()[-1]), usage.ru_utime + usage.ru_stime


def copy_instance(source: Path, dest: Path, extra_config: str) -> Path:
    """The cached instance's work tree and git, without its engine state, plus extra config."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".revetly"))
    toml = dest / "revetly.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + extra_config, encoding="utf-8")
    bench_pass.git(dest, "commit", "-q", "--allow-empty", "-am", "bench: configuration")
    return dest


def latency(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2)}


def measure_passes(insts: dict[str, Path], rounds: int) -> dict[str, dict[str, float]]:
    """Full passes from scratch, the modes interleaved `rounds` times (lite, local, lite, …):
    median wall and CPU per mode, then one one-file incremental pass each."""
    wall: dict[str, list[float]] = {mode: [] for mode in insts}
    cpu: dict[str, list[float]] = {mode: [] for mode in insts}
    for _ in range(rounds):
        for mode, inst in insts.items():
            shutil.rmtree(inst / ".revetly", ignore_errors=True)
            seconds, charged = timed_child(CHILD_PASS, str(inst))
            wall[mode].append(seconds)
            cpu[mode].append(charged)
    report: dict[str, dict[str, float]] = {}
    for mode, inst in insts.items():
        bench_pass.edit_one_story(inst, "semantic")
        one, _ = timed_child(CHILD_PASS, str(inst))
        report[mode] = {"full_pass_s": round(statistics.median(wall[mode]), 2),
                        "full_pass_cpu_s": round(statistics.median(cpu[mode]), 2),
                        "one_file_pass_s": round(one, 2)}
    return report


def measure_search(insts: dict[str, Path], queries_file: Path) -> dict[str, Any]:
    """search_context p50/p95 per mode and the median of the per-query differences."""
    seconds = json.loads(child(CHILD_SEARCH, str(insts["lite"]), str(insts["local"]),
                               str(queries_file)))
    deltas = [b - a for a, b in zip(seconds["lite"], seconds["local"], strict=True)]
    return {"lite": latency(seconds["lite"]), "local": latency(seconds["local"]),
            "paired_delta_p50_ms": round(statistics.median(deltas) * 1000, 2)}


def measure_index(rows: int, dims: int = 256, queries: int = 50) -> dict[str, Any]:
    """nearest() over `rows` random unit vectors (one chunk per artifact), median of queries."""
    import numpy as np
    from revetly_core.store.vectors import Matrix, nearest

    rng = np.random.default_rng(42)
    data = rng.standard_normal((rows, dims), dtype=np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    matrix = Matrix("bench", [f"A-{i:07d}" for i in range(rows)],
                    np.arange(rows, dtype=np.intp), data)
    seconds = []
    for q in data[:queries]:
        t = time.perf_counter()
        nearest(matrix, q, 50)
        seconds.append(time.perf_counter() - t)
    return {"rows": rows, "megabytes": round(data.nbytes / 2**20, 1), **latency(seconds)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000", type=bench_pass.parse_sizes)
    ap.add_argument("--index-rows", default="10000,100000,200000",
                    type=lambda s: [int(x) for x in s.split(",") if x])
    ap.add_argument("--cache-dir", type=Path, default=bench_pass.BENCH_DIR / ".cache")
    ap.add_argument("--results-dir", type=Path, default=bench_pass.BENCH_DIR / "results")
    ap.add_argument("--rounds", type=int, default=2, help="full passes per mode, interleaved")
    args = ap.parse_args(argv)
    gen = bench_pass.resolve_gen(None)
    results = args.results_dir
    results.mkdir(parents=True, exist_ok=True)
    index = [measure_index(rows) for rows in args.index_rows]
    for row in index:
        print(f"vector index: {row['rows']} rows ({row['megabytes']} MB) nearest p50 "
              f"{row['p50_ms']} ms, p95 {row['p95_ms']} ms", flush=True)
    for size in args.sizes:
        source, _ = bench_pass.prepare_instance(size, gen, args.cache_dir.resolve(), False)
        report: dict[str, Any] = {"size": size, "index": index}
        with tempfile.TemporaryDirectory(prefix="revetly-semantic-") as tmp:
            queries = Path(tmp) / "queries.json"
            queries.write_text(json.dumps(bench_reads.load_queries(gen, QUERIES)))
            insts = {mode: copy_instance(source, Path(tmp) / mode, extra)
                     for mode, extra in (("lite", ""), ("local", LOCAL))}
            report["load_before"] = os.getloadavg()[0]
            report.update(measure_passes(insts, args.rounds))
            search = measure_search(insts, queries)
            report["load_after"] = os.getloadavg()[0]
        for mode in insts:
            report[mode].update(search[mode])
            print(f"[{size}] {mode}: {report[mode]}", flush=True)
        lite, local = report["lite"], report["local"]
        report["pass_ratio"] = round(local["full_pass_s"] / lite["full_pass_s"], 2)
        report["pass_cpu_ratio"] = round(local["full_pass_cpu_s"] / lite["full_pass_cpu_s"], 2)
        report["search_p50_delta_ms"] = round(local["p50_ms"] - lite["p50_ms"], 2)
        report["search_paired_delta_p50_ms"] = search["paired_delta_p50_ms"]
        print(f"[{size}] full pass x{report['pass_ratio']} wall, x{report['pass_cpu_ratio']} CPU "
              f"with the local provider; search p50 {report['search_p50_delta_ms']:+.2f} ms, "
              f"paired median {report['search_paired_delta_p50_ms']:+.2f} ms (load "
              f"{report['load_before']:.1f} -> {report['load_after']:.1f})", flush=True)
        (results / f"semantic-{size}.json").write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
