#!/usr/bin/env python3
"""Benchmark of the semantic leg: pass time and search latency with and without `[embedding]`.

    python bench/bench_semantic.py                  # size 10000
    python bench/bench_semantic.py --sizes 1000
    python bench/bench_semantic.py --index-rows 100000,200000   # brute-force nearest at that many

Per size it takes bench_pass.py's cached synthetic instance, copies it twice (lite, and with
`[embedding] provider = "local"`), and in a fresh process per measure times the full pass, a
one-file incremental pass, and search_context over the generator's queries (median and p95).
It also times the vector index alone (numpy brute force over unit float32 rows) at
--index-rows random vectors. Results go to bench/results/semantic-<size>.json; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
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
engine = Engine.open(sys.argv[1])
queries = json.loads(open(sys.argv[2]).read())
engine.search_context(queries[0])
seconds = []
for q in queries:
    t = time.perf_counter()
    try:
        engine.search_context(q)
    except Exception:
        pass
    seconds.append(time.perf_counter() - t)
print(json.dumps(seconds))
"""


def child(code: str, *args: str) -> str:
    """Run code in a fresh interpreter (imports and caches cold, as a shell starts)."""
    return subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True,
                          text=True).stdout.strip().splitlines()[-1]


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


def measure_mode(inst: Path, queries_file: Path) -> dict[str, Any]:
    full = float(child(CHILD_PASS, str(inst)))
    bench_pass.edit_one_story(inst, "semantic")
    one = float(child(CHILD_PASS, str(inst)))
    searches = json.loads(child(CHILD_SEARCH, str(inst), str(queries_file)))
    return {"full_pass_s": round(full, 2), "one_file_pass_s": round(one, 2), **latency(searches)}


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
    args = ap.parse_args(argv)
    gen = bench_pass.resolve_gen(None)
    results = bench_pass.BENCH_DIR / "results"
    results.mkdir(exist_ok=True)
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
            for mode, extra in (("lite", ""), ("local", LOCAL)):
                inst = copy_instance(source, Path(tmp) / mode, extra)
                report[mode] = measure_mode(inst, queries)
                print(f"[{size}] {mode}: {report[mode]}", flush=True)
        lite, local = report["lite"], report["local"]
        report["pass_ratio"] = round(local["full_pass_s"] / lite["full_pass_s"], 2)
        report["search_p50_delta_ms"] = round(local["p50_ms"] - lite["p50_ms"], 2)
        print(f"[{size}] full pass ×{report['pass_ratio']} with the local provider; search p50 "
              f"{report['search_p50_delta_ms']:+.2f} ms", flush=True)
        (results / f"semantic-{size}.json").write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
