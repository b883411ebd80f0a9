#!/usr/bin/env python3
"""Benchmark of the served endpoint (`revetly serve --http`) against stdio, with real tokens.

    python bench/bench_http.py                       # size 10000
    python bench/bench_http.py --sessions 200 --calls-per-session 20

On bench_pass.py's cached, synced instance it starts the tests' local issuer
(tests/support/issuer.py) and `python -m revetly_mcp --http` on 127.0.0.1 with [auth] verifier =
"jwt" (signature, iss, exp, aud checked on every request; no introspection, so the numbers are
the verifier's and not a second HTTP hop's), then measures:

- get_artifact and search_context round trips over HTTP (one keep-alive connection, one call
  at a time, after warm-up; the answer read off its SSE stream) against the same calls over
  stdio (bench_mcp.StdioServer), each call asked of every transport back to back with the order
  rotated per call, so the machine's load falls on all alike: p50 each, the ratio, and the
  target http <= 1.5 x stdio + 2 ms;
- with --baseline-src DIR (a checkout of an earlier commit, e.g. `git archive REV | tar -x`),
  a second endpoint run from that code answers the same calls in the same rotation: the
  before/after ratios come from one run;
- SESSIONS concurrent sessions, each with its own token, initialize + CALLS get_artifact /
  search_context calls: p50 / p95 per call, errors (target 0), wall time;
- the endpoint's RSS (VmRSS) before and after that load.

The instance's revetly.toml is restored afterwards. Writes bench/results/http-<size>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
import bench_mcp
import bench_pass
import bench_reads

BENCH_DIR = Path(__file__).resolve().parent
ISSUER = BENCH_DIR.parent / "tests" / "support" / "issuer.py"
QUERY_COUNT = 50
WARMUP = 5
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench-http", "version": "1"}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_health(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"bench: {url} exited {proc.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    sys.exit(f"bench: {url} never answered")


def answer_of(text: str, request_id: int) -> dict[str, Any]:
    """The JSON-RPC answer to request_id on a POST's SSE stream (or a JSON body)."""
    if text.lstrip().startswith("{"):
        return json.loads(text)  # type: ignore[no-any-return]
    for line in text.splitlines():
        if line.startswith("data:"):
            message: dict[str, Any] = json.loads(line[5:])
            if message.get("id") == request_id:
                return message
    raise RuntimeError(f"no answer to {request_id} in {text[:200]!r}")


class HttpSession:
    """One MCP session over Streamable HTTP with a bearer token (sync, keep-alive)."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.http = httpx.Client(headers={**HEADERS, "Authorization": f"Bearer {token}"},
                                 timeout=120)
        self.next_id = 0
        init = self.http.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                         "params": INIT})
        init.raise_for_status()
        self.http.headers["mcp-session-id"] = init.headers["mcp-session-id"]
        self.http.headers["mcp-protocol-version"] = "2025-11-25"
        self.http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        self.next_id += 1
        t0 = time.perf_counter()
        response = self.http.post(self.url, json={"jsonrpc": "2.0", "id": self.next_id,
                                                  "method": "tools/call",
                                                  "params": {"name": name, "arguments": arguments}})
        answer = answer_of(response.text, self.next_id)
        return time.perf_counter() - t0, answer

    def close(self) -> None:
        self.http.delete(self.url)
        self.http.close()


def round_trips(calls: dict[str, Any], ids: list[str], queries: list[str]
                ) -> dict[str, dict[str, list[float]]]:
    """Seconds per call for each transport: every call asked of all of them back to back, the
    order rotated by one per call (after WARMUP calls of each kind on each)."""
    for call in calls.values():
        for aid in ids[:WARMUP]:
            call("get_artifact", {"artifact_id": aid})
        for q in queries[:WARMUP]:
            call("search_context", {"query": q})
    labels = list(calls)
    out: dict[str, dict[str, list[float]]] = {
        label: {"get_artifact": [], "search_context": []} for label in labels}
    work = [("get_artifact", {"artifact_id": aid}) for aid in ids] + \
        [("search_context", {"query": q}) for q in queries]
    for i, (name, arguments) in enumerate(work):
        turn = i % len(labels)
        for label in labels[turn:] + labels[:turn]:
            out[label][name].append(calls[label](name, arguments)[0])
    return out


def start_endpoint(inst: Path, port: int, env: dict[str, str] | None) -> subprocess.Popen[bytes]:
    """`python -m revetly_mcp --http` on 127.0.0.1:port, answering health."""
    server = subprocess.Popen([sys.executable, "-m", "revetly_mcp", "--http", "--port",
                               str(port), "--instance", str(inst)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wait_health(f"http://127.0.0.1:{port}/health", server)
    return server


def baseline_env(src: Path, hidden: list[str], shadow: Path) -> dict[str, str]:
    """The environment that runs the endpoint from an earlier checkout's three packages, with
    `hidden` packages (ones that code did not declare) made unimportable, as on an install of
    it: each is shadowed in `shadow` by a module that raises ImportError."""
    shadow.mkdir(parents=True, exist_ok=True)
    for name in hidden:
        (shadow / f"{name}.py").write_text(
            f"raise ImportError('{name} is hidden from the baseline endpoint')\n")
    paths = [str(shadow)] if hidden else []
    paths += [str((src / pkg / "src").resolve())
              for pkg in ("revetly_core", "revetly_mcp", "revetly_cli")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def load_avg() -> float:
    """The machine's 1-minute load average."""
    return round(os.getloadavg()[0], 2)


async def one_session(url: str, token: str, calls: int, ids: list[str], queries: list[str],
                      seed: int, latencies: list[float], errors: list[str]) -> None:
    rng = random.Random(seed)
    headers = {**HEADERS, "Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(headers=headers, timeout=600) as http:
        try:
            init = await http.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                              "params": INIT})
            init.raise_for_status()
            http.headers["mcp-session-id"] = init.headers["mcp-session-id"]
            http.headers["mcp-protocol-version"] = "2025-11-25"
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        except httpx.HTTPError as exc:
            errors.append(f"initialize: {exc}")
            return
        for i in range(1, calls + 1):
            name, args = (("get_artifact", {"artifact_id": rng.choice(ids)}) if rng.random() < 0.6
                          else ("search_context", {"query": rng.choice(queries)}))
            t0 = time.perf_counter()
            try:
                response = await http.post(url, json={"jsonrpc": "2.0", "id": i,
                                                      "method": "tools/call",
                                                      "params": {"name": name, "arguments": args}})
                answer = answer_of(response.text, i)
                if response.status_code != 200 or "error" in answer or \
                        answer["result"].get("isError"):
                    errors.append(f"{name}: {response.status_code} {str(answer)[:120]}")
            except (httpx.HTTPError, RuntimeError, ValueError) as exc:
                errors.append(f"{name}: {exc!r}")
            latencies.append(time.perf_counter() - t0)
        await http.delete(url)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmRSS")


def ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(int(q * len(ordered)), len(ordered) - 1)] * 1000, 2)


def bench_size(size: int, args: argparse.Namespace, gen: Path, queries: list[str]) -> dict[str, Any]:
    inst, meta, _ = bench_reads.ensure_synced(size, args, gen)
    ids, _ = bench_reads.sample_ids(inst, size)
    issuer_port, port = free_port(), free_port()
    issuer_base = f"http://127.0.0.1:{issuer_port}"
    config = inst / "revetly.toml"
    original = config.read_text()
    issuer = subprocess.Popen([sys.executable, str(ISSUER), "--port", str(issuer_port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server: subprocess.Popen[bytes] | None = None
    before: subprocess.Popen[bytes] | None = None
    try:
        wait_health(f"{issuer_base}/health", issuer)
        config.write_text(original + f'\n[auth]\nverifier = "jwt"\nissuer = "{issuer_base}"\n')
        server = start_endpoint(inst, port, bench_pass.child_env())
        url = f"http://127.0.0.1:{port}/mcp"
        before_url = None
        if args.baseline_src is not None:
            before_port = free_port()
            before = start_endpoint(inst, before_port, baseline_env(
                args.baseline_src, args.baseline_without, args.results_dir / "baseline-shadow"))
            before_url = f"http://127.0.0.1:{before_port}/mcp"

        def token(user: str, resource: str = url) -> str:
            got = httpx.post(f"{issuer_base}/token", data={
                "grant_type": "password", "username": user, "resource": resource,
                "ttl": "3600"})
            got.raise_for_status()
            return str(got.json()["access_token"])

        load_start = load_avg()
        sessions = {"http": HttpSession(url, token("bench"))}
        if before_url is not None:
            sessions["http_before"] = HttpSession(before_url, token("bench", before_url))
        stdio = bench_mcp.StdioServer(inst)
        stdio.initialize()
        calls: dict[str, Any] = {label: s.call for label, s in sessions.items()}
        calls["stdio"] = stdio.call
        timed = round_trips(calls, ids, queries)
        for s in sessions.values():
            s.close()
        stdio.close()
        if before is not None:
            before.terminate()
            before.wait(timeout=30)
        out: dict[str, Any] = {"size": size, "instance_head": meta["head"],
                               "load_avg_1m": {"round_trips_start": load_start,
                                               "round_trips_end": load_avg()}}
        if args.baseline_src is not None:
            out["baseline_src"] = str(args.baseline_src)
            out["baseline_without"] = args.baseline_without
        targets = []
        for name in ("get_artifact", "search_context"):
            h = statistics.median(timed["http"][name]) * 1000
            s_ms = statistics.median(timed["stdio"][name]) * 1000
            limit = 1.5 * s_ms + 2.0
            row = {"http_p50_ms": round(h, 2), "stdio_p50_ms": round(s_ms, 2),
                   "http_p95_ms": ms(timed["http"][name], 0.95),
                   "stdio_p95_ms": ms(timed["stdio"][name], 0.95),
                   "ratio": round(h / s_ms, 2), "limit_ms": round(limit, 2)}
            if "http_before" in timed:
                b = statistics.median(timed["http_before"][name]) * 1000
                row.update({"before_http_p50_ms": round(b, 2),
                            "before_http_p95_ms": ms(timed["http_before"][name], 0.95),
                            "before_ratio": round(b / s_ms, 2)})
            out[name] = row
            targets.append({"name": f"{name}_http_p50_ms", "value": round(h, 2),
                            "limit": round(limit, 2), "ok": h <= limit})
        out["targets"] = targets
        out["env"] = bench_pass.env_info()
        if args.sessions > 0:
            out["concurrent"] = concurrent_load(args, server.pid, url, token, ids, queries)
            targets.append({"name": "concurrent_errors", "value": out["concurrent"]["errors"],
                            "limit": 0, "ok": not out["concurrent"]["errors"]})
    finally:
        config.write_text(original)
        for proc in (server, before, issuer):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    path = args.results_dir / f"http-{size}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    report(size, out, path)
    return out


def concurrent_load(args: argparse.Namespace, pid: int, url: str, token: Any, ids: list[str],
                    queries: list[str]) -> dict[str, Any]:
    """SESSIONS concurrent sessions x CALLS calls on the endpoint: latency, errors, RSS."""
    tokens = [token(f"user-{i}") for i in range(args.sessions)]
    rss_before = rss_mb(pid)
    latencies: list[float] = []
    errors: list[str] = []
    load_start = load_avg()

    async def load() -> float:
        t0 = time.perf_counter()
        await asyncio.gather(*(one_session(url, tokens[i], args.calls_per_session, ids,
                                           queries, i, latencies, errors)
                               for i in range(args.sessions)))
        return time.perf_counter() - t0

    wall = asyncio.run(load())
    return {"sessions": args.sessions, "calls_per_session": args.calls_per_session,
            "calls": len(latencies), "p50_ms": ms(latencies, 0.5),
            "p95_ms": ms(latencies, 0.95), "errors": len(errors),
            "error_sample": errors[:5], "wall_s": round(wall, 2),
            "rss_before_mb": rss_before, "rss_after_mb": rss_mb(pid),
            "load_avg_1m": {"start": load_start, "end": load_avg()}}


def report(size: int, out: dict[str, Any], path: Path) -> None:
    """The run's lines on stdout."""
    print(f"[{size}] wrote {path}")
    print(f"[{size}] load average (1 min) {out['load_avg_1m']}")
    for name in ("get_artifact", "search_context"):
        r = out[name]
        before = (f"; before: http p50 {r['before_http_p50_ms']} ms, ratio {r['before_ratio']}"
                  if "before_ratio" in r else "")
        print(f"[{size}] {name:<15} http p50 {r['http_p50_ms']} ms, stdio p50 {r['stdio_p50_ms']} "
              f"ms, ratio {r['ratio']} (limit {r['limit_ms']} ms){before}")
    c = out.get("concurrent")
    if c is not None:
        print(f"[{size}] {c['sessions']} sessions x {c['calls_per_session']} calls: p50 "
              f"{c['p50_ms']} ms, p95 {c['p95_ms']} ms, errors {c['errors']}, wall {c['wall_s']} "
              f"s, RSS {c['rss_before_mb']} -> {c['rss_after_mb']} MiB")
    for t in out["targets"]:
        print(f"[{size}] {t['name']:<28} {t['value']:>9} (limit {t['limit']}) "
              f"{'ok' if t['ok'] else 'MISSED'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark the served endpoint against stdio.")
    ap.add_argument("--sizes", type=bench_pass.parse_sizes, default=bench_pass.parse_sizes("10000"))
    ap.add_argument("--gen")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results")
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--calls-per-session", type=int, default=20)
    ap.add_argument("--baseline-src", type=Path,
                    help="a checkout of earlier code whose endpoint answers the same calls")
    ap.add_argument("--baseline-without", type=lambda v: [p for p in v.split(",") if p],
                    default=[], help="packages the baseline did not declare, hidden from it "
                    "(e.g. httptools,uvloop)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    # the other bench scripts' options, accepted so `nox -s bench -- ...` can pass the same ones
    ap.add_argument("--calls", type=int, help=argparse.SUPPRESS)
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
