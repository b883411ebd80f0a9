#!/usr/bin/env python3
"""Kill -9 benchmark of Revetly's writes: random kills per write kind, and the crash-point matrix.

    python bench/bench_kills.py                  # 25 random kills per kind, every crash point
    python bench/bench_kills.py --kills 100

Each kill runs one write in a forked child of a worker that imported the engine once
(tests/core/writes/kill_harness.py) on a fresh copy of a small synced instance, and sends it
SIGKILL: odd runs a random delay after its engine opened (within 1.5x that kind's measured
write time), even runs a random delay after its intent file appeared (watched from outside;
biased early within the measured time a write is in flight), so many kills land mid-write. Then a
sync recovers, and the run is checked: applied at most once, no residue (intent, temp file,
git lock, uncommitted file), history, review records and CONTEXT agreeing. A kill that left
nothing applied is retried and must then apply exactly once. Writes bench/results/kills.json.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the test suite is a package: tests.core.writes.kill_harness
import tests.core.writes.kill_harness as kh  # noqa: E402 - the suite's own harness: one definition of "torn"

BENCH_DIR = Path(__file__).resolve().parent


def random_kills(server: kh.KillServer, template: Path, scratch: Path, kind: str, n: int,
                 rng: random.Random) -> dict[str, Any]:
    """n random kills of one write kind, and what each left after recovery."""
    whole = server.time(kh.fresh_copy(template, scratch / "timing"), kind)
    flight = server.flight_time(template, scratch, kind)
    tally: collections.Counter[str] = collections.Counter()
    problems: list[str] = []
    for i in range(n):
        root = kh.fresh_copy(template, scratch / "run")
        if i % 2:  # anywhere in the call
            killed = server.kill(root, kind, rng.uniform(0, 1.5 * whole))
        else:  # while the write is in flight: after its intent appeared
            killed = server.kill_in_flight(root, kind, flight * rng.random() ** 2)
        tally["killed" if killed else "finished-before-the-kill"] += 1
        out = kh.settle(root, kind, None)
        for r in out.recovered:
            tally[f"recovered-{r['outcome']}"] += 1
        tally[f"applied-{out.applied}"] += 1
        if out.applied > 1:
            tally["double-applies"] += 1
        if out.problems:
            tally["runs-with-residue-or-disagreement"] += 1
            problems += [f"{kind} #{i}: {p}" for p in out.problems]
        if out.applied == 0:
            again = kh.retry(root, kind)
            tally["retried"] += 1
            if again.applied != 1 or again.problems:
                tally["retry-failures"] += 1
                problems += [f"{kind} #{i} retry: {p}" for p in again.problems]
    return {"kills": n, "write_s": round(whole, 4), "in_flight_s": round(flight, 4),
            **dict(sorted(tally.items())),
            "double-applies": tally["double-applies"],
            "runs-with-residue-or-disagreement": tally["runs-with-residue-or-disagreement"],
            "problems": problems[:20]}


def crash_matrix(server: kh.KillServer, template: Path, scratch: Path) -> dict[str, Any]:
    """Every crash point of every kind once: how many were settled cleanly."""
    rows: dict[str, Any] = {}
    for kind in kh.KINDS:
        clean = 0
        points = kh.points_for(kind)
        for point in points:
            root = kh.fresh_copy(template, scratch / "point")
            server.run(root, kind, point)
            out = kh.settle(root, kind, point)
            clean += int(not out.problems and out.applied <= 1)
        rows[kind] = {"points": len(points), "settled_cleanly": clean}
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=25, help="random kills per write kind")
    ap.add_argument("--seed", default="bench-kills")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="revetly-kills-") as tmp:
        scratch = Path(tmp)
        template = kh.seed_template(scratch / "template")
        kh.mark_template(template)
        server = kh.KillServer()
        try:
            kinds = {kind: random_kills(server, template, scratch, kind, args.kills, rng)
                     for kind in kh.KINDS}
            matrix = crash_matrix(server, template, scratch)
        finally:
            server.close()
    result = {"at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
              "kills_per_kind": args.kills, "random_kills": kinds, "crash_points": matrix}
    out = BENCH_DIR / "results" / "kills.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'kind':<11} {'kills':>5} {'killed':>6} {'done1st':>7} {'completed':>9} "
          f"{'rolledback':>10} {'retried':>7} {'double':>6} {'residue':>7}")
    for kind, r in kinds.items():
        print(f"{kind:<11} {r['kills']:>5} {r.get('killed', 0):>6} "
              f"{r.get('finished-before-the-kill', 0):>7} {r.get('recovered-completed', 0):>9} "
              f"{r.get('recovered-rolled-back', 0):>10} {r.get('retried', 0):>7} "
              f"{r['double-applies']:>6} {r['runs-with-residue-or-disagreement']:>7}")
    for kind, m in matrix.items():
        print(f"crash points {kind:<11} {m['settled_cleanly']}/{m['points']} settled cleanly")
    for r in kinds.values():
        for p in r["problems"]:
            print("PROBLEM", p)
    bad = sum(r["double-applies"] + r["runs-with-residue-or-disagreement"] +
              r.get("retry-failures", 0) for r in kinds.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
