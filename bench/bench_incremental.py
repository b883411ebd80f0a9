"""Incremental passes of two engine versions, side by side on one instance (issue 18).

Each pass is a fresh process timing `Engine.open` + `sync(full=False)`: its CPU is the
process's own and that of the `git` it ran (getrusage self + children), its wall the call's.
The versions alternate pass by pass, so the shared machine's load falls on both alike.

    python bench/bench_incremental.py --sizes 100000 --runs 8 [--base SRC]

``--base``: a `revetly_core/src` folder of the version to compare with (for instance
`git archive BASE revetly_core | tar -x -C /tmp/base`, then `/tmp/base/revetly_core/src`);
without it only the work tree's version runs. Two rounds: nothing changed, then one edited
file (a paragraph appended to a different story and committed, outside the timing, before
each pass). Uses `bench/.cache/inst-N/` as `bench_pass.py` left it (a size with no synced
instance is skipped); the edits stay committed there, and `bench_pass.py` resets the instance
to its pristine commit on its next run. JSON: `bench/results/incremental-N.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent

CHILD = """
import json, os, resource, sys, time
from revetly_core.engine import Engine
load = os.getloadavg()[0]
wall, cpu = time.perf_counter(), time.process_time()
payload = Engine.open(sys.argv[1]).sync(full=False)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": wall, "cpu_s": cpu + kids.ru_utime + kids.ru_stime,
                  "git_cpu_s": kids.ru_utime + kids.ru_stime, "changed": payload["changed"],
                  "load": load}))
"""


def one_pass(instance: Path, source: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if source:
        env["PYTHONPATH"] = source
    done = subprocess.run([sys.executable, "-c", CHILD, str(instance)], env=env,
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def edit_one_story(instance: Path, k: int) -> str:
    stories = sorted(n for n in os.listdir(instance / "backlog") if n.startswith("STORY-"))
    rel = f"backlog/{stories[(len(stories) // 3 + 997 * k) % len(stories)]}"
    with open(instance / rel, "a", encoding="utf-8") as f:
        f.write(f"\nA paragraph appended by bench_incremental, edit {k}.\n")
    git = ["git", "-C", str(instance), "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "add", rel], check=True)
    subprocess.run([*git, "commit", "-qm", f"bench_incremental: edit {rel}"], check=True)
    return rel


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    cpu = [r["cpu_s"] for r in rows]
    return {"cpu_median_s": statistics.median(cpu), "cpu_min_s": min(cpu), "cpu_max_s": max(cpu),
            "wall_median_s": statistics.median(r["wall_s"] for r in rows),
            "load": [min(r["load"] for r in rows), max(r["load"] for r in rows)], "passes": rows}


def measure(instance: Path, versions: dict[str, str | None], runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    edits = 0
    for kind in ("nothing changed", "one edited file"):
        rows: dict[str, list[dict[str, Any]]] = {name: [] for name in versions}
        for _ in range(runs):
            for name, source in versions.items():
                if kind == "one edited file":
                    edits += 1
                    edit_one_story(instance, edits)
                rows[name].append(one_pass(instance, source))
        out[kind] = {name: summary(r) for name, r in rows.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", default=None)
    parser.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args, _ = parser.parse_known_args()  # nox hands every bench the same arguments
    versions: dict[str, str | None] = {"base": args.base} if args.base else {}
    versions["this tree"] = None
    for size in (int(s) for s in args.sizes.split(",") if s):
        instance = args.cache_dir / f"inst-{size}"
        if not (instance / ".revetly" / "context.db").is_file():
            print(f"size {size}: no synced instance at {instance}; run bench_pass.py first")
            continue
        one_pass(instance, None)  # settle anything the last run left, untimed
        result = measure(instance, versions, args.runs)
        for kind, by_version in result.items():
            for name, s in by_version.items():
                print(f"size {size}, {kind:16s} {name:10s} CPU median {s['cpu_median_s']:.3f} s "
                      f"[{s['cpu_min_s']:.3f}-{s['cpu_max_s']:.3f}], in-process wall median "
                      f"{s['wall_median_s']:.3f} s, load {s['load'][0]:.1f}-{s['load'][1]:.1f}")
        args.results_dir.mkdir(parents=True, exist_ok=True)
        (args.results_dir / f"incremental-{size}.json").write_text(
            json.dumps({"size": size, "runs": args.runs, "base": args.base, **result}, indent=1))


if __name__ == "__main__":
    main()
