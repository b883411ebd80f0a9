#!/usr/bin/env python3
"""Benchmark of the MCP server over a real stdio subprocess on a generated instance.

    python bench/bench_mcp.py                 # size 10000
    python bench/bench_mcp.py --sizes 10000 --calls 1000

Instances and their cache are bench_pass.py's (bench/.cache/inst-<size>/), synced as
bench_reads.py does. Per size it measures, with a plain JSON-RPC line client on the pipes (so
the numbers are the server's and the pipe's, not a client library's):

- start -> initialize: from spawning `python -m revetly_mcp --instance DIR` to the initialize
  answer being read (median of START_RUNS fresh processes);
- get_artifact and search_context round trips (p50/p95, one call at a time, after warm-up);
- the server's RSS (VmRSS from /proc) after every quarter of CALLS mixed calls.

Writes bench/results/mcp-<size>.json and prints the numbers against the targets.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_pass
import bench_reads

BENCH_DIR = Path(__file__).resolve().parent
START_RUNS = 5
QUERY_COUNT = 50
WARMUP = 5
TARGETS = {"get_artifact_p50_ms": 25.0, "search_context_p50_ms": 80.0, "start_to_initialize_s": 1.5,
           "rss_after_calls_mb": 300.0}


class StdioServer:
    """`revetly-mcp` as a subprocess spoken to in raw JSON-RPC lines."""

    def __init__(self, inst: Path) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "revetly_mcp", "--instance", str(inst)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=bench_pass.child_env(),
        )
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        line = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            line["params"] = params
        self.proc.stdin.write(json.dumps(line).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise RuntimeError("the server closed its stdout")
            answer: dict[str, Any] = json.loads(raw)
            if answer.get("id") == self.next_id:
                return answer

    def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.proc.stdin.flush()

    def initialize(self) -> float:
        """Seconds from spawn to the initialize answer."""
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        elapsed = time.perf_counter() - self.started
        self.notify("notifications/initialized")
        return elapsed

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        t0 = time.perf_counter()
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        return time.perf_counter() - t0, answer

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        raise RuntimeError("no VmRSS")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def structured(answer: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = answer.get("result", {}).get("structuredContent") or {}
    return result


def bench_size(size: int, args: argparse.Namespace, gen: bench_pass.Generator,
               queries: list[str]) -> dict[str, Any]:
    inst, meta, _ = bench_reads.ensure_synced(size, args, gen)
    ids, _ = bench_reads.sample_ids(inst, size)
    starts = []
    for _ in range(START_RUNS):
        server = StdioServer(inst)
        starts.append(server.initialize())
        server.close()
    server = StdioServer(inst)
    server.initialize()
    out: dict[str, Any] = {"size": size, "instance_head": meta["head"],
                           "start_to_initialize_s": {"median": round(statistics.median(starts), 3),
                                                     "runs": [round(s, 3) for s in starts]}}
    for aid in ids[:WARMUP]:
        server.call("get_artifact", {"artifact_id": aid})
    times, wrong = [], 0
    for aid in ids:
        sec, answer = server.call("get_artifact", {"artifact_id": aid})
        times.append(sec)
        wrong += structured(answer).get("artifact_id") != aid
    out["get_artifact"] = {**bench_reads.latency_stats(times), "mismatched": wrong}
    for q in queries[:WARMUP]:
        server.call("search_context", {"query": q})
    times, empty = [], 0
    for q in queries:
        sec, answer = server.call("search_context", {"query": q})
        times.append(sec)
        empty += not structured(answer).get("artifacts")
    out["search_context"] = {**bench_reads.latency_stats(times), "queries_without_artifacts": empty}
    rng = random.Random(7)
    rss = [server.rss_mb()]
    quarter = max(args.calls // 4, 1)
    for i in range(1, args.calls + 1):
        pick = rng.random()
        if pick < 0.45:
            server.call("get_artifact", {"artifact_id": rng.choice(ids)})
        elif pick < 0.85:
            server.call("search_context", {"query": rng.choice(queries)})
        elif pick < 0.95:
            server.call("list_backlog", {"limit": 50})
        else:
            server.call("context_health", {})
        if i % quarter == 0:
            rss.append(server.rss_mb())
    server.close()
    out["rss_mb"] = {"before_mixed": rss[0], "per_quarter": rss[1:], "calls": args.calls,
                     "growth_last_half_mb": round(rss[-1] - rss[len(rss) // 2], 1)}
    measured = {"get_artifact_p50_ms": out["get_artifact"]["p50_ms"],
                "search_context_p50_ms": out["search_context"]["p50_ms"],
                "start_to_initialize_s": out["start_to_initialize_s"]["median"],
                "rss_after_calls_mb": rss[-1]}
    out["targets"] = [{"name": k, "value": v, "limit": TARGETS[k], "ok": v <= TARGETS[k]}
                      for k, v in measured.items()]
    out["env"] = bench_pass.env_info()
    args.results_dir.mkdir(parents=True, exist_ok=True)
    path = args.results_dir / f"mcp-{size}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"[{size}] wrote {path}")
    for t in out["targets"]:
        print(f"[{size}] {t['name']:<24} {t['value']:>9} (limit {t['limit']}) "
              f"{'ok' if t['ok'] else 'MISSED'}")
    print(f"[{size}] RSS MiB before/per quarter: {rss[0]} / {rss[1:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark the MCP server over stdio.")
    ap.add_argument("--sizes", type=bench_pass.parse_sizes, default=bench_pass.parse_sizes("10000"))
    ap.add_argument("--gen")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results")
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--calls", type=int, default=1000, help="mixed calls before the RSS reading")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    # the other bench scripts' options, accepted so `nox -s bench -- ...` can pass the same ones
    ap.add_argument("--status-runs", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--live-code", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cached-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.cache_dir = args.cache_dir.resolve()
    args.results_dir = args.results_dir.resolve()
    gen = bench_pass.resolve_gen(args.gen)
    queries = bench_reads.load_queries(gen, QUERY_COUNT)
    rows = [bench_size(size, args, gen, queries) for size in args.sizes]
    missed = [t for r in rows for t in r["targets"] if not t["ok"]]
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
