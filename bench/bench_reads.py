#!/usr/bin/env python3
"""Benchmark of Revetly's read surface: search_context, get_artifact, list_backlog, CLI search.

search_context is timed side by side with the raw FTS5 OR query (bench/raw_fts5.py) over the
same instance files, built by this run, each query timed on both one after the other.

    python bench/bench_reads.py                            # size 10000
    python bench/bench_reads.py --sizes 10000,100000
    python bench/bench_reads.py --sizes 10000 --profile    # plus cProfile of 20 warm searches
    python bench/bench_reads.py --sizes 100000 --cached-only   # skip sizes not already cached and synced

Instances, their cache (bench/.cache/inst-<size>/), the code snapshot and the generator are
bench_pass.py's: this script imports its helpers. Per size it brings the cached instance to its
pristine commit, syncs it (incremental, in a fresh process; full when it has no state yet), then
times the reads in-process on one warm Engine and `revetly search --json` as one-shot processes.
Writes bench/results/reads-<size>.json and appends a row to bench/results/reads-summary.md.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_pass  # the sibling script: instances, cache, code snapshot, profiles
import raw_fts5  # the raw FTS5 baseline: build_index, search

SCRIPT = Path(__file__).resolve()
BENCH_DIR = SCRIPT.parent
QUERY_COUNT = 50
WARMUP_CALLS = 3
ID_SAMPLE = 200
ID_SAMPLE_SEED = 1
ID_TYPES = ("story", "decision")
BACKLOG_RUNS = 20
BACKLOG_LIMIT = 50
CLI_QUERIES = 5
CLI_RUNS = 7
PROFILE_CALLS = 20

# Limits per size (see bench/README.md): milliseconds in-process, seconds for the CLI process.
RAW_INDEX_FILE = "raw-fts5-{size}.sqlite"
"""The raw baseline's index, rebuilt in the cache directory by every run (never reused)."""
RAW_LIMIT = 10

TARGETS: dict[int, dict[str, float]] = {
    10_000: {"search_p50_ms": 50.0, "search_p50_ratio": 3.0, "search_p95_ratio": 3.0,
             "get_artifact_p50_ms": 10.0, "cli_search_s": 0.4},
    100_000: {"search_p50_ms": 250.0, "search_p50_ratio": 3.0, "search_p95_ratio": 3.0,
              "cli_search_s": 0.8},
}
TARGET_LABELS = {
    "search_p50_ms": "search_context p50 ms",
    "search_p50_ratio": "search_context p50 / raw FTS5 OR query p50",
    "search_p95_ratio": "search_context p95 / raw FTS5 OR query p95",
    "get_artifact_p50_ms": "get_artifact p50 ms",
    "cli_search_s": "revetly search --json s (worst per-query median)",
}
SUMMARY_HEADER = (
    "| measured at | engine | size | search p50 / p95 ms | raw FTS5 p50 / p95 ms | ratio p50 / p95 | "
    "get_artifact p50 / p95 ms | list_backlog p50 ms | CLI search s (worst / median query) | load | "
    "targets |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


# ------------------------------------------------------------------------------ helpers
def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def latency_stats(seconds: Sequence[float]) -> dict[str, Any]:
    """p50/p95/min/max/mean in milliseconds, plus the raw timings."""
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms), "p50_ms": round(percentile(ms, 50), 3), "p95_ms": round(percentile(ms, 95), 3),
        "min_ms": round(min(ms), 3), "max_ms": round(max(ms), 3), "mean_ms": round(statistics.fmean(ms), 3),
        "runs_ms": [round(v, 3) for v in ms],
    }


def load_avg() -> float | None:
    with contextlib.suppress(OSError, AttributeError):
        return round(os.getloadavg()[0], 2)
    return None


def load_queries(gen: bench_pass.Generator, count: int) -> list[str]:
    """The generator's `--dump-queries COUNT --seed SEED`: one query per line."""
    proc = gen.run("--dump-queries", str(count), "--seed", str(bench_pass.SEED))
    queries = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    if len(queries) != count:
        sys.exit(f"bench: {gen.label} --dump-queries {count} printed {len(queries)} queries")
    return queries


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = call()
    return time.perf_counter() - t0, out


def timed_both(call: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one call (CPU: this process's, less swayed by a shared machine)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = call()
    return time.perf_counter() - w0, time.process_time() - c0, out


def use_snapshot(snapshot: str) -> None:
    """Put the code snapshot first on sys.path and forget the revetly modules imported before it
    (finding the generator's package imports revetly_core), so this process measures the copy."""
    sys.path.insert(0, snapshot)
    for name in [m for m in sys.modules if m.split(".")[0] in ("revetly_core", "revetly_cli")]:
        del sys.modules[name]


# ------------------------------------------------------------------------------ instances
def cached_and_synced(size: int, gen: bench_pass.Generator, cache: Path) -> tuple[bool, str]:
    """Whether bench_pass.prepare_instance would reuse this size's instance and it holds a store.

    Mirrors prepare_instance's reuse test (meta file, .git, generator sha256, seed), so a size
    that passes is never regenerated; "synced" means .revetly/context.db is present.
    """
    inst, meta_path = cache / f"inst-{size}", cache / f"inst-{size}.json"
    if not meta_path.is_file() or not (inst / ".git").is_dir():
        return False, f"no cached instance at {inst}"
    try:
        meta = json.loads(meta_path.read_text())
    except ValueError:
        return False, f"{meta_path} is not JSON"
    if meta.get("gen_sha256") != gen.digest or meta.get("seed") != bench_pass.SEED:
        return False, f"{inst} was made by another generator or seed (it would be regenerated)"
    if not (inst / ".revetly" / "context.db").is_file():
        return False, f"{inst} has never been synced (no .revetly/context.db)"
    return True, f"{inst} at {meta['head'][:12]}, synced before"


def ensure_synced(
    size: int, args: argparse.Namespace, gen: bench_pass.Generator
) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """The cached instance at its pristine commit, synced by a pass in a fresh process."""
    inst, meta = bench_pass.prepare_instance(size, gen, args.cache_dir, args.regen)
    mode = "incremental" if (inst / ".revetly" / "context.db").is_file() else "full"
    print(f"[{size}] sync ({mode}, fresh process) ...", flush=True)
    run = bench_pass.run_pass_child(inst, mode)
    print(f"[{size}]     {run.wall_s:.2f} s, outcome {run.outcome}, changed {run.changed}", flush=True)
    if run.outcome != "succeeded":
        sys.exit(f"bench: the {mode} pass on {inst} ended {run.outcome!r}")
    return inst, meta, {**asdict(run), "peak_mem_mb": run.peak_mem_mb()}


def sample_ids(inst: Path, size: int) -> tuple[list[str], int]:
    """ID_SAMPLE live story/decision ids of the store, drawn with random.Random(ID_SAMPLE_SEED)."""
    from revetly_core.instance.layout import InstancePaths
    from revetly_core.store.db import Store

    store = Store(InstancePaths(inst).db, readonly=True)
    try:
        marks = ",".join("?" * len(ID_TYPES))
        ids = [r[0] for r in store.conn.execute(
            f"SELECT id FROM artifacts WHERE type IN ({marks}) AND deleted=0 ORDER BY id", ID_TYPES)]
    finally:
        store.close()
    if len(ids) < ID_SAMPLE:
        sys.exit(f"bench: [{size}] only {len(ids)} live {'/'.join(ID_TYPES)} ids in the store")
    return random.Random(ID_SAMPLE_SEED).sample(ids, ID_SAMPLE), len(ids)


# ------------------------------------------------------------------------------ measures
def build_raw_index(inst: Path, size: int, cache: Path) -> tuple[Any, dict[str, Any]]:
    """The raw FTS5 baseline over the instance's markdown files, built afresh on disk by this run."""
    path = cache / RAW_INDEX_FILE.format(size=size)
    for stale in (path, path.with_name(path.name + "-journal")):
        stale.unlink(missing_ok=True)
    print(f"[{size}] raw FTS5 baseline: indexing the instance's markdown into {path} ...", flush=True)
    conn, stats = raw_fts5.build_index(inst, path)
    print(f"[{size}]     {stats.files} files in {stats.wall_s:.2f} s", flush=True)
    return conn, {"path": str(path), "files": stats.files, "build_wall_s": round(stats.wall_s, 3),
                  "build_cpu_s": round(stats.cpu_s, 3)}


def warm_page_cache(files: Sequence[Path]) -> dict[str, Any]:
    """Read each file through once, so neither side of the side-by-side is timed against the
    disk: the raw index was just written (its pages are cached), the store may not be."""
    t0, total = time.perf_counter(), 0
    for path in files:
        with contextlib.suppress(OSError), path.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                total += len(chunk)
    return {"files": [str(f) for f in files], "bytes": total,
            "seconds": round(time.perf_counter() - t0, 3)}


def ratio(ours: float, raw: float) -> float | None:
    """ours / raw, rounded; None when the raw time is zero."""
    return round(ours / raw, 2) if raw > 0 else None


def measure_search_side_by_side(engine: Any, raw_conn: Any, queries: list[str]) -> dict[str, Any]:
    """search_context and the raw FTS5 OR query, each query timed on both back to back.

    Interleaved so a swing of the shared machine's load falls on both sides alike; both warmed
    by WARMUP_CALLS untimed calls first."""
    for q in queries[:WARMUP_CALLS]:
        engine.search_context(q, limit=RAW_LIMIT)
        raw_fts5.search(raw_conn, q, RAW_LIMIT)
    ours, raw, ours_cpu, raw_cpu, hits, raw_hits = [], [], [], [], [], []
    for q in queries:
        sec, cpu, payload = timed_both(partial(engine.search_context, q, limit=RAW_LIMIT))
        ours.append(sec)
        ours_cpu.append(cpu)
        hits.append(len(payload.get("artifacts", [])))
        sec, cpu, paths = timed_both(partial(raw_fts5.search, raw_conn, q, RAW_LIMIT))
        raw.append(sec)
        raw_cpu.append(cpu)
        raw_hits.append(len(paths))
    mine, base = latency_stats(ours), latency_stats(raw)
    mine_cpu, base_cpu = latency_stats(ours_cpu), latency_stats(raw_cpu)
    return {
        "search_context": {**mine, "limit": RAW_LIMIT, "artifacts_served": hits,
                           "queries_without_artifacts": sum(1 for h in hits if h == 0),
                           "cpu": mine_cpu},
        "raw_fts5_search": {**base, "limit": RAW_LIMIT, "files_served": raw_hits, "cpu": base_cpu},
        "search_ratio": {"p50": ratio(mine["p50_ms"], base["p50_ms"]),
                         "p95": ratio(mine["p95_ms"], base["p95_ms"]),
                         "cpu_p50": ratio(mine_cpu["p50_ms"], base_cpu["p50_ms"]),
                         "cpu_p95": ratio(mine_cpu["p95_ms"], base_cpu["p95_ms"])},
    }


def measure_in_process(engine: Any, raw_conn: Any, queries: list[str], ids: list[str]) -> dict[str, Any]:
    """Each read WARMUP_CALLS times untimed, then timed one call at a time on the same Engine."""
    out: dict[str, Any] = measure_search_side_by_side(engine, raw_conn, queries)

    for aid in ids[:WARMUP_CALLS]:
        engine.get_artifact(aid)
    times, wrong = [], []
    for aid in ids:
        sec, payload = timed(partial(engine.get_artifact, aid))
        times.append(sec)
        if payload.get("artifact_id") != aid:
            wrong.append(aid)
    out["get_artifact"] = {**latency_stats(times), "ids": ids, "mismatched": wrong}

    for _ in range(WARMUP_CALLS):
        engine.list_backlog(limit=BACKLOG_LIMIT)
    times, rows, total = [], 0, None
    for _ in range(BACKLOG_RUNS):
        sec, payload = timed(partial(engine.list_backlog, limit=BACKLOG_LIMIT))
        times.append(sec)
        rows, total = len(payload.get("items", [])), payload.get("total")
    out["list_backlog"] = {**latency_stats(times), "limit": BACKLOG_LIMIT, "items": rows, "total": total}
    return out


def measure_cli(inst: Path, queries: list[str], expected: dict[str, list[str]]) -> dict[str, Any]:
    """`python -m revetly_cli search Q --json --instance DIR`, CLI_RUNS timed runs per query.

    One untimed run per query first (page cache, nothing else: every timed run is a new process).
    """
    per_query: list[dict[str, Any]] = []
    for q in queries:
        cmd = [sys.executable, "-m", "revetly_cli", "search", q, "--json", "--instance", str(inst)]
        times: list[float] = []
        served: list[str] = []
        for i in range(CLI_RUNS + 1):
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, env=bench_pass.child_env())
            sec = time.perf_counter() - t0
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr)
                sys.exit(f"bench: {' '.join(cmd)} exited with {proc.returncode}")
            if i == 0:
                served = [a["artifact_id"] for a in json.loads(proc.stdout).get("artifacts", [])]
            else:
                times.append(round(sec, 4))
        per_query.append({"query": q, "runs_s": times, "median_s": round(statistics.median(times), 4),
                          "artifacts": served, "matches_in_process": served == expected.get(q)})
    medians = [p["median_s"] for p in per_query]
    return {
        "command": [sys.executable, "-m", "revetly_cli", "search", "QUERY", "--json",
                    "--instance", str(inst)],
        "runs_per_query": CLI_RUNS, "queries": per_query,
        "worst_median_s": max(medians), "median_of_medians_s": round(statistics.median(medians), 4),
        "median_all_s": round(statistics.median(t for p in per_query for t in p["runs_s"]), 4),
    }


def profile_searches(engine: Any, queries: list[str], size: int, results: Path) -> dict[str, Any]:
    """cProfile PROFILE_CALLS warm search_context calls (never the timed ones)."""
    import cProfile

    calls = [queries[i % len(queries)] for i in range(PROFILE_CALLS)]
    for q in calls[:WARMUP_CALLS]:
        engine.search_context(q, limit=10)
    prof_path = results / f"profile-reads-{size}-search.prof"
    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    profiler.enable()
    for q in calls:
        engine.search_context(q, limit=10)
    profiler.disable()
    wall = time.perf_counter() - t0
    profiler.dump_stats(str(prof_path))
    txt = bench_pass.write_profile_text(prof_path)
    print(f"[{size}] profiled {PROFILE_CALLS} warm search_context calls: {wall:.3f} s under cProfile "
          f"-> {txt}", flush=True)
    return {"calls": PROFILE_CALLS, "wall_s": round(wall, 3), "prof": str(prof_path), "txt": str(txt)}


# ------------------------------------------------------------------------------ reporting
def check_targets(size: int, result: dict[str, Any]) -> list[dict[str, Any]]:
    values = {
        "search_p50_ms": result["search_context"]["p50_ms"],
        "search_p50_ratio": result["search_ratio"]["p50"],
        "search_p95_ratio": result["search_ratio"]["p95"],
        "get_artifact_p50_ms": result["get_artifact"]["p50_ms"],
        "cli_search_s": result["cli_search"]["worst_median_s"],
    }
    return [{"target": key, "label": TARGET_LABELS[key], "limit": limit, "value": values[key],
             "ok": values[key] is not None and values[key] <= limit}
            for key, limit in TARGETS.get(size, {}).items()]


def verdict_text(targets: list[dict[str, Any]]) -> str:
    if not targets:
        return "no targets"
    return "; ".join(f"{t['target']} {'PASS' if t['ok'] else 'FAIL'} ({t['value']} ≤ {t['limit']:g})"
                     for t in targets)


def summary_row(r: dict[str, Any]) -> str:
    s, g, b, c = r["search_context"], r["get_artifact"], r["list_backlog"], r["cli_search"]
    raw, q = r["raw_fts5_search"], r["search_ratio"]
    code = r["code"]
    engine = f"{str(code.get('repo_head', '?'))[:12]}{'+dirty' if code.get('repo_dirty') else ''}"
    return (f"| {r['measured_at']} | {engine} ({code['code_sha256']}) | {r['size']} | "
            f"{s['p50_ms']:.1f} / {s['p95_ms']:.1f} | {raw['p50_ms']:.1f} / {raw['p95_ms']:.1f} | "
            f"{q['p50']}× / {q['p95']}× (CPU {q['cpu_p50']}× / {q['cpu_p95']}×) | "
            f"{g['p50_ms']:.2f} / {g['p95_ms']:.2f} | "
            f"{b['p50_ms']:.1f} | {c['worst_median_s']:.3f} / {c['median_of_medians_s']:.3f} | "
            f"{bench_pass.fmt(r['load_before'])} | {verdict_text(r['targets'])} |")


def append_summary(results: Path, row: str) -> Path:
    """Append one row to reads-summary.md (the header first when the file is new)."""
    out = results / "reads-summary.md"
    if not out.is_file() or not out.read_text().strip():
        out.write_text(f"# Read-surface benchmark\n\n{SUMMARY_HEADER}\n")
    with out.open("a", encoding="utf-8") as fh:
        fh.write(row + "\n")
    return out


def print_report(r: dict[str, Any]) -> None:
    size = r["size"]
    head = ["size", "measure", "n", "p50 ms", "p95 ms", "min ms", "max ms"]
    table = [[str(size), label, str(m["n"]), f"{m['p50_ms']:.2f}", f"{m['p95_ms']:.2f}",
              f"{m['min_ms']:.2f}", f"{m['max_ms']:.2f}"]
             for key, label in (("search_context", "search_context"),
                                ("raw_fts5_search", "raw FTS5 OR query (same queries)"),
                                ("get_artifact", "get_artifact"),
                                ("list_backlog", f"list_backlog first page ({BACKLOG_LIMIT})"))
             for m in (r[key],)]
    widths = [max(len(row[i]) for row in [head, *table]) for i in range(len(head))]
    print()
    print("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    c = r["cli_search"]
    print(f"\n[{size}] revetly search --json, median of {c['runs_per_query']} runs per query (process start "
          f"included):")
    for q in c["queries"]:
        runs = ", ".join(f"{t:.3f}" for t in q["runs_s"])
        print(f"[{size}]   {q['median_s']:.3f} s  {q['query']!r}  (runs {runs})"
              + ("" if q["matches_in_process"] else "  [served other artifacts than in-process]"))
    print(f"[{size}]   worst {c['worst_median_s']:.3f} s, median of medians "
          f"{c['median_of_medians_s']:.3f} s, median of all runs {c['median_all_s']:.3f} s")
    s, g, q = r["search_context"], r["get_artifact"], r["search_ratio"]
    raw_cpu = r["raw_fts5_search"]["cpu"]
    print(f"[{size}] search_context / raw FTS5 OR query, side by side: p50 {q['p50']}×, p95 {q['p95']}× "
          f"wall; CPU p50 {q['cpu_p50']}×, p95 {q['cpu_p95']}× (CPU ms ours "
          f"{s['cpu']['p50_ms']:.2f} / {s['cpu']['p95_ms']:.2f}, raw {raw_cpu['p50_ms']:.2f}"
          f" / {raw_cpu['p95_ms']:.2f}; raw index: {r['raw_fts5']['files']} files "
          f"built in {r['raw_fts5']['build_wall_s']:.2f} s)")
    print(f"[{size}] search_context: {s['queries_without_artifacts']} of {s['n']} queries served no artifact")
    if g["mismatched"]:
        print(f"[{size}] WARNING: get_artifact served another artifact for {g['mismatched']}")
    print(f"[{size}] load before: {bench_pass.fmt(r['load_before'])}, after: "
          f"{bench_pass.fmt(r['load_after'])} ({r['env']['cpus']} CPUs); "
          f"revetly_core from {r['revetly_core']}")
    for t in r["targets"]:
        print(f"[{size}] target {t['label']}: {t['value']} ≤ {t['limit']:g} -> "
              f"{'PASS' if t['ok'] else 'FAIL'}")


# ------------------------------------------------------------------------------ main
def bench_size(size: int, args: argparse.Namespace, gen: bench_pass.Generator,
               queries: list[str]) -> dict[str, Any]:
    inst, meta, sync_run = ensure_synced(size, args, gen)
    code_before = args.code if args.code is not None else bench_pass.code_state()
    # imported only now: main() has put the code snapshot first on sys.path
    import revetly_core
    from revetly_core import Engine

    ids, id_pool = sample_ids(inst, size)
    raw_conn, raw_info = build_raw_index(inst, size, args.cache_dir)
    index_dir = inst / ".revetly" / "index"
    warmed = warm_page_cache([inst / ".revetly" / "context.db", *sorted(index_dir.glob("keyword.sqlite*")),
                              Path(raw_info["path"])])
    print(f"[{size}] page cache warmed: {warmed['bytes'] / 2**20:.0f} MiB of the store, the keyword "
          f"index and the raw index read in {warmed['seconds']:.1f} s", flush=True)
    load_before = load_avg()
    engine = Engine.open(inst)
    print(f"[{size}] in-process reads: {len(queries)} searches side by side with the raw FTS5 query, "
          f"{len(ids)} get_artifact, {BACKLOG_RUNS} list_backlog ...", flush=True)
    reads = measure_in_process(engine, raw_conn, queries, ids)
    raw_conn.close()
    expected = {q: [a["artifact_id"] for a in engine.search_context(q, limit=10).get("artifacts", [])]
                for q in queries[:CLI_QUERIES]}
    print(f"[{size}] CLI: revetly search --json, {CLI_QUERIES} queries x {CLI_RUNS} runs ...", flush=True)
    cli = measure_cli(inst, queries[:CLI_QUERIES], expected)
    load_after = load_avg()
    result: dict[str, Any] = {
        "size": size,
        "measured_at": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "env": bench_pass.env_info(), "load_before": load_before, "load_after": load_after,
        "code": code_before, "revetly_core": str(Path(revetly_core.__file__).parent),
        "instance": {"path": str(inst), "head": meta["head"], "files": meta.get("files"),
                     "gen": meta.get("gen"), "live_story_decision_ids": id_pool},
        "sync": sync_run,
        "raw_fts5": raw_info,
        "page_cache_warmed": warmed,
        "queries": queries,
        **reads,
        "cli_search": cli,
    }
    result["targets"] = check_targets(size, result)
    if args.code is None:
        result["code_changed_during_run"] = bench_pass.code_state() != code_before
        if result["code_changed_during_run"]:
            print(f"[{size}] WARNING: the engine code changed while it was measured", flush=True)
    if args.profile:
        result["profile"] = profile_searches(engine, queries, size, args.results_dir)
    out = args.results_dir / f"reads-{size}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"[{size}] wrote {out}", flush=True)
    return result


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description="Benchmark Revetly's reads (see bench/README.md).")
    ap.add_argument("--sizes", type=bench_pass.parse_sizes, default=bench_pass.parse_sizes("10000"),
                    help="comma-separated instance sizes (default 10000; 100000 works too)")
    ap.add_argument("--gen", help=f"an instance generator script to use instead (else "
                                  f"${bench_pass.GEN_ENV}, else python -m {bench_pass.DEFAULT_GEN})")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache",
                    help="where generated instances are kept (default bench/.cache)")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results",
                    help="where reads-<size>.json and reads-summary.md go (default bench/results)")
    ap.add_argument("--regen", action="store_true", help="regenerate instances even when cached")
    ap.add_argument("--cached-only", action="store_true",
                    help="skip sizes whose instance is not already cached and synced (never generate)")
    ap.add_argument("--profile", action="store_true",
                    help=f"also cProfile {PROFILE_CALLS} warm search_context calls per size "
                         "(profile-reads-<size>-search.prof/.txt)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--live-code", action="store_true",
                    help="measure the work tree's code instead of a snapshot (bench/.cache/code-<digest>/)")
    # bench_pass.py's option, accepted so `nox -s bench -- ...` can hand both scripts the same arguments
    ap.add_argument("--status-runs", type=int, help=argparse.SUPPRESS)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    gen = bench_pass.resolve_gen(args.gen)
    args.cache_dir = args.cache_dir.resolve()
    args.results_dir = args.results_dir.resolve()
    args.results_dir.mkdir(parents=True, exist_ok=True)
    sizes: list[int] = []
    for size in args.sizes:
        ok, why = cached_and_synced(size, gen, args.cache_dir)
        if args.cached_only and (args.regen or not ok):
            print(f"[{size}] skipped (--cached-only): {'--regen given' if args.regen else why}", flush=True)
        else:
            sizes.append(size)
    args.code = None
    if not args.live_code:
        args.code = bench_pass.snapshot_code(args.cache_dir)
        use_snapshot(args.code["snapshot"])  # this process reads through the same code as the CLI
        print(f"measuring a snapshot of the engine code: {args.code['snapshot']} "
              f"(HEAD {str(args.code.get('repo_head', '?'))[:12]}"
              f"{' + uncommitted changes' if args.code.get('repo_dirty') else ''})", flush=True)
    queries = load_queries(gen, QUERY_COUNT)
    rows = [bench_size(size, args, gen, queries) for size in sizes]
    summary: Path | None = None
    for r in rows:
        print_report(r)
        summary = append_summary(args.results_dir, summary_row(r))
    if rows:
        print(f"\n{SUMMARY_HEADER}")
        for r in rows:
            print(summary_row(r))
        print(f"\nappended to {summary}")
    missed = [t for r in rows for t in r["targets"] if not t["ok"]]
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
