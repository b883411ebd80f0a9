#!/usr/bin/env python3
"""Benchmark of the outside_backlog block: what it adds to list_backlog and context_health.

    nice python bench/bench_outside.py                   # 10,000 artifacts, 2,000 outside
    nice python bench/bench_outside.py --size 100000 --outside 20000

A real SQLite store is filled with ``--size`` artifacts: ``--outside`` tracker issues no type
map covers (``untyped_why`` stored, half untyped, half unmapped, each with two labels) and
stories for the rest. In one run, call by call in turn so the machine's load weighs on each
alike, it times ``list_backlog(limit=50)`` as served (the block included), the block alone
(``reads.outside.outside_backlog``) and the counts context_health adds
(``reads.outside.outside_counts``). The 1-minute load average is recorded. Results:
bench/results/outside-N.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
RUNS = 30
AT = "2024-01-01T00:00:00+00:00"


def fill(store: Any, size: int, outside: int) -> None:
    """``outside`` issues outside every type map, then stories up to ``size``."""
    from revetly_core.model import Artifact

    rows = []
    for n in range(1, outside + 1):
        why = "unmapped" if n % 2 else "untyped"
        rows.append(Artifact(f"GH-{n}", "issue", f"Issue {n}: ask the vendor about quotas",
                             "github/app", "acme", metadata={
                                 "untyped_why": why, "native_type": "Spike" if n % 2 else None,
                                 "labels": ["question", "vendor"]}))
    rows += [Artifact(f"STORY-{n}", "story", f"Story {n}", "repository", "acme", status="ready")
             for n in range(1, size - outside + 1)]
    store.upsert_artifacts(rows, AT)


def p50_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--outside", type=int, default=2_000)
    args = ap.parse_args(argv)
    from revetly_core.config import parse_config
    from revetly_core.reads.backlog import list_backlog
    from revetly_core.reads.budget import read_budget
    from revetly_core.reads.outside import outside_backlog, outside_counts
    from revetly_core.store.db import Store

    config = parse_config({"instance": {"name": "acme"}})
    budget = read_budget(config.read.budget)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / ".revetly" / "context.db")
        fill(store, args.size, args.outside)
        calls = {
            "list_backlog": lambda: list_backlog(config, store, limit=50),
            "outside_block": lambda: outside_backlog(store, ("acme",), budget),
            "outside_counts": lambda: outside_counts(store),
        }
        times: dict[str, list[float]] = {k: [] for k in calls}
        for call in calls.values():
            call()  # warm
        for _ in range(RUNS):
            for name, call in calls.items():
                started = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - started)
        page = list_backlog(config, store, limit=50)
        store.close()
    result = {
        "size": args.size, "outside": args.outside, "runs": RUNS,
        "load_1m": round(os.getloadavg()[0], 2),
        "p50_ms": {k: p50_ms(v) for k, v in times.items()},
        "block_share_of_list_backlog": round(
            statistics.median(times["outside_block"]) / statistics.median(times["list_backlog"]),
            3),
        "rows_listed": len(page["outside_backlog"]["items"]),
        "count": page["outside_backlog"]["count"],
    }
    out = BENCH / "results" / f"outside-{args.size}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
