#!/usr/bin/env python3
"""Benchmark of the MCP server over real stdio subprocesses on a generated instance.

    python bench/bench_mcp.py --cache-dir DIR                 # size 10000, 10,000 mixed calls
    python bench/bench_mcp.py --sizes 10000 --calls 1000 --starts 7

Instances and their cache are bench_pass.py's (<cache-dir>/inst-<size>/), synced as
bench_reads.py does. Every number is measured side by side in one run, interleaved, so the load
of a shared machine weighs on both sides of each ratio alike:

- spawn -> initialize answered, and spawn -> the first tools/list answered (sent right after),
  with the SDK's own client (stdio_client + ClientSession, the 2025-11-25 handshake):
  `python -m revetly_mcp --instance DIR` beside a bare MCPServer with one tool (the SDK's own
  floor) and a bare `python -c pass` (the interpreter's), median of --starts;
- round trips of get_artifact (200 ids) and search_context (50 queries), one call at a time after
  warm-up, each call made three ways in a row: the core call in this process (Surface.call, what
  the server's tool body runs), the SDK client over stdio, and a plain JSON-RPC line client on
  the pipes (the server's and the pipe's share, without the client library's validation), and
  that server's context switches per call (every thread's, from /proc);
- with --against DIR (repeatable; e.g. a `git archive` of the commit before a change): instead of
  the above, this code's server beside one served from each DIR, line clients on all, each call
  asked of the core in process and of every server back to back (the order rotated per call),
  --rounds times over the ids and the queries: per server the p50 wall overhead over the core
  call and its CPU per call from /proc beside the core call's own CPU;
- memory: a fresh server, --calls mixed calls through the SDK client (45% get_artifact, 40%
  search_context, 10% list_backlog, 5% context_health), its VmRSS (and the anonymous share of
  it, RssAnon: heap, not pages of files) after the first 100 calls, every 1,000, and at the end.

The 1-minute load average is recorded with each part. Writes <results-dir>/mcp-<size>.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_pass
import bench_reads

BENCH_DIR = Path(__file__).resolve().parent
QUERY_COUNT = 50
WARMUP = 5
RSS_FIRST = 100
"""The mixed call after which the memory baseline is read."""
TARGETS = {"start_to_initialize_s": 0.3, "get_artifact_overhead_ms": 2.0,
           "search_context_overhead_ms": 2.0, "rss_growth_pct": 10.0}
"""Issue 18: initialize answered 0.3 s after the spawn; an MCP round trip at most the core call
+ 2 ms (p50 of the per-call differences); RSS at the end within 10% of after the first 100."""

FLOOR_SERVER = """
from mcp.server.mcpserver import MCPServer
mcp = MCPServer("floor")

@mcp.tool()
def echo(text: str) -> str:
    return text

mcp.run()
"""


class StdioServer:
    """`revetly-mcp` as a subprocess spoken to in raw JSON-RPC lines."""

    def __init__(self, inst: Path, env: dict[str, str] | None = None) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "revetly_mcp", "--instance", str(inst)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env or bench_pass.child_env(),
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


def served(payload: dict[str, Any]) -> object:
    """What an answer served: the artifact's id, or the ids of the artifacts found."""
    return payload.get("artifact_id") or [a.get("artifact_id") for a in payload.get("artifacts", [])]


def rss_of(pid: int, field: str = "VmRSS") -> float:
    """VmRSS of one process (or another /proc status field: RssAnon, RssFile), MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no {field}")


def context_switches(pid: int) -> int:
    """Voluntary and involuntary context switches of every thread of one process so far: each
    is a wake-up, which waits for a core on a loaded machine (decisions/0038)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
    return total


def child_pids() -> set[int]:
    """This process's children (the SDK client spawns the server and keeps its pid to itself)."""
    out: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):
            out.update(int(p) for p in (task / "children").read_text().split())
    return out


def server_params(inst: Path | None) -> Any:
    from mcp import StdioServerParameters

    env = {**os.environ, **(bench_pass.child_env() or {})}
    if inst is None:
        return StdioServerParameters(command=sys.executable, args=["-c", FLOOR_SERVER], env=env)
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "revetly_mcp", "--instance", str(inst)], env=env)


@contextlib.asynccontextmanager
async def sdk_session(inst: Path | None) -> AsyncIterator[tuple[Any, float, int]]:
    """(session, seconds from spawn to the initialize answer, server pid) over the SDK's client."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    before = child_pids()
    t0 = time.perf_counter()
    async with stdio_client(server_params(inst)) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        elapsed = time.perf_counter() - t0
        pids = child_pids() - before
        yield session, elapsed, max(pids) if pids else -1


async def sdk_start(inst: Path | None) -> tuple[float, float]:
    """Seconds from spawn to the initialize answer, and to the first tools/list answer (sent
    right after, as a host does: bounded by the SDK's import, decisions/0038)."""
    t0 = time.perf_counter()
    async with sdk_session(inst) as (session, elapsed, _pid):
        await session.list_tools()
        return elapsed, time.perf_counter() - t0


def interpreter_start() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t0


async def measure_starts(inst: Path, runs: int) -> dict[str, Any]:
    """Spawn -> initialize answered and spawn -> tools/list answered, of revetly-mcp and of the
    SDK's bare server, beside `python -c pass`, interleaved."""
    revetly: list[tuple[float, float]] = []
    floor: list[tuple[float, float]] = []
    bare: list[float] = []
    load = bench_reads.load_avg()
    for _ in range(runs):
        revetly.append(await sdk_start(inst))
        floor.append(await sdk_start(None))
        bare.append(interpreter_start())
    med = {"revetly": statistics.median(r[0] for r in revetly),
           "sdk_floor": statistics.median(f[0] for f in floor), "python": statistics.median(bare)}
    listed = {"revetly": statistics.median(r[1] for r in revetly),
              "sdk_floor": statistics.median(f[1] for f in floor)}
    return {"load_1min": load, "load_1min_after": bench_reads.load_avg(),
            "median_s": {k: round(v, 3) for k, v in med.items()},
            "tools_list_median_s": {k: round(v, 3) for k, v in listed.items()},
            "above_sdk_floor_s": round(med["revetly"] - med["sdk_floor"], 3),
            "runs_s": {"revetly": [round(r[0], 3) for r in revetly],
                       "sdk_floor": [round(f[0], 3) for f in floor],
                       "python": [round(s, 3) for s in bare]},
            "tools_list_runs_s": {"revetly": [round(r[1], 3) for r in revetly],
                                  "sdk_floor": [round(f[1], 3) for f in floor]}}


def side_by_side(core: list[float], over: list[float]) -> dict[str, Any]:
    """p50/p95 of both, and the p50 of the per-call differences (ms)."""
    diffs = [(o - c) * 1000 for c, o in zip(core, over, strict=True)]
    return {"core": bench_reads.latency_stats(core), "over_stdio": bench_reads.latency_stats(over),
            "overhead_p50_ms": round(statistics.median(diffs), 3),
            "overhead_p95_ms": round(bench_reads.percentile(diffs, 95), 3)}


async def over_stdio(session: Any, raw: StdioServer, name: str, arguments: dict[str, Any],
                     sdk: list[float], line: list[float]) -> tuple[Any, dict[str, Any]]:
    """One call through the SDK client and one through the line client, each timed."""
    t0 = time.perf_counter()
    result = await session.call_tool(name, arguments)
    sdk.append(time.perf_counter() - t0)
    sec, answer = raw.call(name, arguments)
    line.append(sec)
    return result, answer


async def measure_round_trips(inst: Path, ids: list[str], queries: list[str]) -> dict[str, Any]:
    """Each call three ways in a row: in-process core, the SDK client, the raw line client."""
    from revetly_core.surface import Surface

    surface = Surface.open(inst)
    raw = StdioServer(inst)
    raw.initialize()
    out: dict[str, Any] = {"load_1min": bench_reads.load_avg()}
    try:
        async with sdk_session(inst) as (session, _, _pid):
            for name, key, values in (("get_artifact", "artifact_id", ids),
                                      ("search_context", "query", queries)):
                for v in values:  # every value once, untimed: the pages each read touches
                    surface.call(name, {key: v})
                for v in values[:WARMUP]:
                    await session.call_tool(name, {key: v})
                    raw.call(name, {key: v})
                core: list[float] = []
                sdk: list[float] = []
                line: list[float] = []
                mismatched = 0
                switches = context_switches(raw.proc.pid)
                for i, v in enumerate(values):
                    if i % 2:  # every other call the core call goes last, so order weighs evenly
                        result, answer = await over_stdio(session, raw, name, {key: v}, sdk, line)
                    t0 = time.perf_counter()
                    expected = surface.call(name, {key: v})
                    core.append(time.perf_counter() - t0)
                    if not i % 2:
                        result, answer = await over_stdio(session, raw, name, {key: v}, sdk, line)
                    mismatched += (served(result.structured_content or {}) != served(expected)
                                   or served(structured(answer)) != served(expected))
                out[name] = {"sdk_client": side_by_side(core, sdk),
                             "line_client": side_by_side(core, line), "mismatched": mismatched,
                             "line_server_switches_per_call": round(
                                 (context_switches(raw.proc.pid) - switches) / len(values), 1)}
    finally:
        raw.close()
    out["load_1min_after"] = bench_reads.load_avg()
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of every thread of one process so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def code_env(tree: Path) -> dict[str, str]:
    """The environment that serves from another checkout's three packages (first on PYTHONPATH)."""
    paths = [str(tree / package / "src") for package in ("revetly_core", "revetly_mcp", "revetly_cli")]
    return {**os.environ, **(bench_pass.child_env() or {}), "PYTHONPATH": os.pathsep.join(paths)}


def side_by_side_servers(inst: Path, trees: list[Path], ids: list[str], queries: list[str],
                         rounds: int) -> dict[str, Any]:
    """This code's server beside one per other checkout, line clients on each: every call is
    asked of the core in process and of every server back to back, the order rotated per call;
    per server the p50 of the per-call wall differences and its CPU per call from /proc, beside
    the core call's own CPU (decisions/0038)."""
    import compileall

    from revetly_core.surface import Surface

    for tree in trees:
        for package in ("revetly_core", "revetly_mcp", "revetly_cli"):
            compileall.compile_dir(str(tree / package / "src"), quiet=1)
    names = ["this", *(str(t) for t in trees)]
    surface = Surface.open(inst)
    servers = [StdioServer(inst), *(StdioServer(inst, code_env(t)) for t in trees)]
    out: dict[str, Any] = {"servers": names, "rounds": rounds}
    try:
        for server in servers:
            server.initialize()
        for name, key, values in (("get_artifact", "artifact_id", ids),
                                  ("search_context", "query", queries)):
            calls = [{key: v} for v in values]
            for arguments in calls[:WARMUP]:
                surface.call(name, arguments)
                for server in servers:
                    server.call(name, arguments)
            load = bench_reads.load_avg()
            walls: list[list[float]] = [[] for _ in range(len(servers) + 1)]
            core_cpu = 0.0
            mismatched = 0
            cpu0 = [cpu_seconds(server.proc.pid) for server in servers]
            turn = 0
            for _ in range(rounds):
                for arguments in calls:
                    order = list(range(len(servers) + 1))
                    order = order[turn % len(order):] + order[:turn % len(order)]
                    turn += 1
                    results = []
                    for j in order:
                        if j == 0:
                            c0, t0 = time.process_time(), time.perf_counter()
                            surface.call(name, arguments)
                            walls[0].append(time.perf_counter() - t0)
                            core_cpu += time.process_time() - c0
                        else:
                            sec, answer = servers[j - 1].call(name, arguments)
                            walls[j].append(sec)
                            results.append(json.dumps(answer.get("result"), sort_keys=True))
                    mismatched += len(set(results)) > 1
            n = rounds * len(calls)
            core_ms = core_cpu / n * 1000
            per: dict[str, Any] = {}
            for j, server in enumerate(servers, 1):
                diffs = [(o - c) * 1000 for c, o in zip(walls[0], walls[j], strict=True)]
                cpu_ms = (cpu_seconds(server.proc.pid) - cpu0[j - 1]) / n * 1000
                per[names[j - 1]] = {"wall_p50_ms": round(statistics.median(walls[j]) * 1000, 2),
                                     "overhead_p50_ms": round(statistics.median(diffs), 2),
                                     "cpu_per_call_ms": round(cpu_ms, 2),
                                     "cpu_above_core_ms": round(cpu_ms - core_ms, 2)}
            out[name] = {"calls": n, "load_1min": load, "load_1min_after": bench_reads.load_avg(),
                         "core_wall_p50_ms": round(statistics.median(walls[0]) * 1000, 2),
                         "core_cpu_per_call_ms": round(core_ms, 2), "servers": per,
                         "answers_differing": mismatched}
    finally:
        for server in servers:
            server.close()
    return out


def print_side_by_side(result: dict[str, Any]) -> None:
    for name in ("get_artifact", "search_context"):
        r = result[name]
        print(f"  {name}: {r['calls']} calls, load {r['load_1min']:.1f} -> {r['load_1min_after']:.1f}, "
              f"core p50 {r['core_wall_p50_ms']} ms, core CPU {r['core_cpu_per_call_ms']} ms/call, "
              f"answers differing {r['answers_differing']}", flush=True)
        for server, m in r["servers"].items():
            print(f"    {server}: p50 {m['wall_p50_ms']} ms (+{m['overhead_p50_ms']}), CPU "
                  f"{m['cpu_per_call_ms']} ms/call (+{m['cpu_above_core_ms']} above the core call)",
                  flush=True)


async def measure_memory(inst: Path, ids: list[str], queries: list[str], calls: int) -> dict[str, Any]:
    """A fresh server's VmRSS after the first RSS_FIRST mixed calls, every 1,000, and at the end."""
    rng = random.Random(7)
    samples: dict[int, float] = {}
    load = bench_reads.load_avg()
    t0 = time.perf_counter()
    async with sdk_session(inst) as (session, _, pid):
        samples[0] = rss_of(pid)
        anon: dict[int, float] = {0: rss_of(pid, "RssAnon")}
        for i in range(1, calls + 1):
            pick = rng.random()
            if pick < 0.45:
                await session.call_tool("get_artifact", {"artifact_id": rng.choice(ids)})
            elif pick < 0.85:
                await session.call_tool("search_context", {"query": rng.choice(queries)})
            elif pick < 0.95:
                await session.call_tool("list_backlog", {"limit": 50})
            else:
                await session.call_tool("context_health", {})
            if i in (RSS_FIRST, calls) or i % 1000 == 0:
                samples[i] = rss_of(pid)
                anon[i] = rss_of(pid, "RssAnon")
    first = samples[min(RSS_FIRST, calls)]
    last = samples[calls]
    return {"calls": calls, "load_1min": load, "load_1min_after": bench_reads.load_avg(),
            "wall_s": round(time.perf_counter() - t0, 1), "rss_mb": samples,
            "rss_anon_mb": anon,
            "after_first_mb": first, "at_end_mb": last,
            "growth_pct": round((last - first) / first * 100, 1)}


async def bench_async(inst: Path, ids: list[str], queries: list[str],
                      args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"start_to_initialize": await measure_starts(inst, args.starts)}
    print(f"  start: initialize {out['start_to_initialize']['median_s']}, tools/list "
          f"{out['start_to_initialize']['tools_list_median_s']}", flush=True)
    if args.starts_only:
        return {**out, "round_trips": None, "memory": None}
    out["round_trips"] = await measure_round_trips(inst, ids, queries)
    for name in ("get_artifact", "search_context"):
        r = out["round_trips"][name]
        print(f"  {name}: core p50 {r['sdk_client']['core']['p50_ms']} ms, sdk client "
              f"{r['sdk_client']['over_stdio']['p50_ms']} ms (+{r['sdk_client']['overhead_p50_ms']}), "
              f"line client {r['line_client']['over_stdio']['p50_ms']} ms "
              f"(+{r['line_client']['overhead_p50_ms']}), line server "
              f"{r['line_server_switches_per_call']} context switches per call", flush=True)
    out["memory"] = (await measure_memory(inst, ids, queries, args.calls)) if args.calls else None
    return out


def bench_size(size: int, args: argparse.Namespace, gen: bench_pass.Generator,
               queries: list[str]) -> dict[str, Any]:
    import anyio

    inst, meta, _ = bench_reads.ensure_synced(size, args, gen)
    ids, _ = bench_reads.sample_ids(inst, size)
    print(f"[{size}] bytecode of {bench_pass.compile_packages()} modules written", flush=True)
    out: dict[str, Any] = {"size": size, "instance_head": meta["head"],
                           **anyio.run(bench_async, inst, ids, queries, args)}
    trips = out["round_trips"]
    measured = {"start_to_initialize_s": out["start_to_initialize"]["median_s"]["revetly"],
                "get_artifact_overhead_ms":
                    trips["get_artifact"]["sdk_client"]["overhead_p50_ms"] if trips else None,
                "search_context_overhead_ms":
                    trips["search_context"]["sdk_client"]["overhead_p50_ms"] if trips else None,
                "rss_growth_pct": out["memory"]["growth_pct"] if out["memory"] else None}
    out["targets"] = [{"name": k, "value": v, "limit": TARGETS[k], "ok": v <= TARGETS[k]}
                      for k, v in measured.items() if v is not None]
    out["env"] = bench_pass.env_info()
    args.results_dir.mkdir(parents=True, exist_ok=True)
    path = args.results_dir / f"mcp-{size}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"[{size}] wrote {path}")
    for t in out["targets"]:
        print(f"[{size}] {t['name']:<28} {t['value']:>9} (limit {t['limit']}) "
              f"{'ok' if t['ok'] else 'MISSED'}")
    mem = out["memory"]
    if mem:
        print(f"[{size}] RSS MiB after {RSS_FIRST} / at {mem['calls']} calls: "
              f"{mem['after_first_mb']} / {mem['at_end_mb']} ({mem['growth_pct']:+}%)")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark the MCP server over stdio.")
    ap.add_argument("--sizes", type=bench_pass.parse_sizes, default=bench_pass.parse_sizes("10000"))
    ap.add_argument("--gen")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results")
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--calls", type=int, default=10_000,
                    help="mixed calls of the memory run (0: no memory run)")
    ap.add_argument("--starts", type=int, default=7, help="spawn -> initialize runs of each kind")
    ap.add_argument("--starts-only", action="store_true",
                    help="measure only the starts (no round trips, no memory run)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--against", type=Path, action="append", default=[],
                    help="another checkout served beside this code's server (repeatable): only "
                    "the side-by-side round trips are measured")
    ap.add_argument("--rounds", type=int, default=6,
                    help="with --against: rounds over the 200 ids and the 50 queries")
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
    if args.against:
        for size in args.sizes:
            inst, _meta, _ = bench_reads.ensure_synced(size, args, gen)
            ids, _ = bench_reads.sample_ids(inst, size)
            print(f"[{size}] bytecode of {bench_pass.compile_packages()} modules written", flush=True)
            result = side_by_side_servers(inst, [t.resolve() for t in args.against], ids, queries,
                                          args.rounds)
            print_side_by_side(result)
            args.results_dir.mkdir(parents=True, exist_ok=True)
            path = args.results_dir / f"mcp-side-by-side-{size}.json"
            path.write_text(json.dumps({"size": size, **result, "env": bench_pass.env_info()},
                                       indent=1) + "\n")
            print(f"[{size}] wrote {path}")
        return 0
    rows = [bench_size(size, args, gen, queries) for size in args.sizes]
    missed = [t for r in rows for t in r["targets"] if not t["ok"]]
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
