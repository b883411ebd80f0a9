#!/usr/bin/env python3
"""search_context with and without the phrase part of the keyword leg, paired in one process.

    python bench/bench_phrases.py                      # bench/.cache/inst-10000 (bench_reads builds it)
    python bench/bench_phrases.py --instance DIR --rounds 7

The same synced instance is read twice over: once as it is (`[ranking] phrase` at its default)
and once with `phrase = 0`. Each round runs every query of the generator's fixed query set once
per variant, in a shuffled order, so both see the same machine; the report is each variant's
p50 / p95 and the median of the per-query differences, with the 1-minute load average. Nothing
is written to the instance. See bench/README.md ("The phrase part").
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_INSTANCE = HERE / ".cache" / "inst-10000"
QUERIES = 50
SEED = 42


def queries(count: int) -> list[str]:
    """The generator's fixed query set (`python -m revetly_core.synthetic --dump-queries`)."""
    out = subprocess.run([sys.executable, "-m", "revetly_core.synthetic", "--dump-queries",
                          str(count), "--seed", str(SEED)], capture_output=True, text=True,
                         check=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def variants(root: Path) -> dict[str, Any]:
    """name -> an engine over the instance: the phrase part at its default, and switched off."""
    from revetly_core import Engine

    engine = Engine.open(root)
    off = {**engine.config.ranking, "phrase": 0.0}
    return {"phrase default": engine,
            "phrase off": Engine(engine.root, engine.config.model_copy(update={"ranking": off}))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instance", type=Path, default=DEFAULT_INSTANCE, help="a synced instance")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    if not (args.instance / "revetly.toml").is_file():
        print(f"bench_phrases: no instance at {args.instance} (bench/bench_reads.py builds it)",
              file=sys.stderr)
        return 2
    qs = queries(QUERIES)
    engines = variants(args.instance)
    for q in qs:  # one untimed run of each: page cache and the shared searcher
        for engine in engines.values():
            engine.search_context(q, limit=10)
    times: dict[str, list[float]] = {name: [] for name in engines}
    load_before = os.getloadavg()[0]
    rng = random.Random(SEED)
    for _ in range(args.rounds):
        for q in qs:
            names = list(engines)
            rng.shuffle(names)
            for name in names:
                t0 = time.perf_counter()
                engines[name].search_context(q, limit=10)
                times[name].append((time.perf_counter() - t0) * 1000)
    print(f"{args.instance}: {len(qs)} queries x {args.rounds} rounds, load "
          f"{load_before:.2f} -> {os.getloadavg()[0]:.2f}")
    for name, ms in times.items():
        ordered = sorted(ms)
        print(f"  {name:15} p50 {statistics.median(ms):7.2f} ms   p95 "
              f"{ordered[int(len(ordered) * 0.95)]:7.2f} ms")
    diffs = [a - b for a, b in zip(times["phrase default"], times["phrase off"], strict=True)]
    print(f"  median paired difference (default - off): {statistics.median(diffs):+.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
