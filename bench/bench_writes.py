#!/usr/bin/env python3
"""Benchmark of Revetly's writes: set_status and record_conversation latency, capture landing.

    python bench/bench_writes.py                 # size 10000
    python bench/bench_writes.py --sizes 10000 --runs 50

Instances and their cache are bench_pass.py's (bench/.cache/inst-<size>/, reset to the pristine
commit first). Per size: make sure CONTEXT holds the instance, then in one process time
set_status and record_conversation calls end to end (file written, commit made, no background
pass), then time how long a write's capture takes to land (background pass on a thread, polled
through context_health(capture=...)). Writes bench/results/writes-<size>.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_pass  # the sibling script: instances, cache, child passes

BENCH_DIR = Path(__file__).resolve().parent
TARGETS = {"set_status_p50_ms": 150.0, "record_conversation_p50_ms": 150.0,
           "capture_landing_p50_s": 2.0}


def stats_ms(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {"p50_ms": round(statistics.median(ms), 1),
            "p90_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.9))], 1),
            "max_ms": round(ms[-1], 1), "n": len(ms)}


def measure(inst: Path, runs: int, landings: int) -> dict[str, Any]:
    from revetly_core import Engine

    os.environ["REVETLY_ACTOR"] = "bench-person"
    engine = Engine.open(inst)
    engine.capture_mode = "none"
    stories = sorted(p.stem for p in (inst / "backlog").glob("STORY-*.md"))[:runs]
    engine.set_status(stories[0], "parked")  # warm: imports, first commit
    status_s: list[float] = []
    for i, sid in enumerate(stories):
        t0 = time.perf_counter()
        engine.set_status(sid, "parked" if i % 2 else "in-progress", claimed_by="bench-agent")
        status_s.append(time.perf_counter() - t0)
    conv_s: list[float] = []
    for i in range(runs):
        t0 = time.perf_counter()
        engine.record_conversation(f"Bench note {i}", f"Benchmark conversation {i}.",
                                   related_ids=[stories[i % len(stories)]])
        conv_s.append(time.perf_counter() - t0)
    engine.sync()  # the timed writes above are read in, so each landing below is one write's
    engine.capture_mode = "thread"
    land_s: list[float] = []
    for i in range(landings):
        out = engine.set_status(stories[i], "ready")
        t0 = time.perf_counter()
        while True:
            state = engine.context_health(capture=out["capture"])["capture"]["state"]
            if state != "pending":
                break
            time.sleep(0.02)
        land_s.append(time.perf_counter() - t0)
        if state != "landed":
            sys.exit(f"bench: capture {out['capture']} ended {state}")
    land = sorted(land_s)
    return {
        "set_status": stats_ms(status_s),
        "record_conversation": stats_ms(conv_s),
        "capture_landing": {"p50_s": round(statistics.median(land), 2),
                            "max_s": round(land[-1], 2), "n": len(land)},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=bench_pass.parse_sizes, default=bench_pass.parse_sizes("10000"))
    ap.add_argument("--gen", help="an instance generator script to use instead of revetly_core.synthetic")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results")
    ap.add_argument("--runs", type=int, default=30, help="timed calls per write (default 30)")
    ap.add_argument("--landings", type=int, default=5, help="captures timed to landing")
    args, _others = ap.parse_known_args(argv)  # nox passes the other benches' options too
    gen = bench_pass.resolve_gen(args.gen)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        inst, meta = bench_pass.prepare_instance(size, gen, args.cache_dir.resolve(), False)
        mode = "incremental" if (inst / ".revetly" / "context.db").exists() else "full"
        print(f"[{size}] {mode} pass before writing ...", flush=True)
        bench_pass.run_pass_child(inst, mode)
        result = measure(inst, args.runs, args.landings)
        bench_pass.git(inst, "reset", "-q", "--hard", meta["head"])
        bench_pass.git(inst, "clean", "-q", "-fd")
        flat = {"set_status_p50_ms": result["set_status"]["p50_ms"],
                "record_conversation_p50_ms": result["record_conversation"]["p50_ms"],
                "capture_landing_p50_s": result["capture_landing"]["p50_s"]}
        row = {"size": size, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
               "load": os.getloadavg()[0], **result,
               "targets": {k: {"target": TARGETS[k], "measured": v, "met": v <= TARGETS[k]}
                           for k, v in flat.items()}}
        (args.results_dir / f"writes-{size}.json").write_text(json.dumps(row, indent=1) + "\n")
        print(json.dumps(row, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
