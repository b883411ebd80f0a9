#!/usr/bin/env python3
"""Benchmark of a read pass over a hostile corpus: peak RSS beside a clean twin, and the count
of hostile files tried and failed.

    python bench/bench_hostile.py                  # 10,000 good files beside every hostile case
    python bench/bench_hostile.py --good 1000

Builds two instances in a temporary folder from the same ``--good`` good stories: a clean one,
and a hostile one that adds every case of tests/core/hostile.py (billion laughs, a symlink to
/dev/zero, a committed file now a FIFO, a 3 GB sparse untracked file, 2025-02-30, .nan, a
5,000-digit integer, a non-UTF-8 name, a full-width id, ...). For each it runs a full
``revetly sync --json`` and then ``revetly check --json`` as child processes (timeout bound) and
reads each child's peak RSS from ``wait4``. A hostile file *fails* when the pass skipped it and
``check`` named its path with one of the case's codes; it *escapes* otherwise.

Target (issue 13): the hostile pass's peak RSS stays within the clean pass's (+10 %), every
hostile file fails alone (0 escapes) and every good file lands. Results:
bench/results/hostile.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO_ROOT = BENCH.parent
sys.path.insert(0, str(REPO_ROOT))  # the test suite is a package: tests.core.gitrepo

from tests.core.gitrepo import Instance  # noqa: E402
from tests.core.hostile import cases, plant_corpus  # noqa: E402

TIMEOUT_S = 900
RSS_SLACK = 1.10


def run_child(root: Path, *args: str) -> tuple[int, dict[str, Any], float, int]:
    """(exit code, JSON payload, wall seconds, peak RSS in KiB) of one `revetly` child."""
    env = {k: v for k, v in os.environ.items() if k != "REVETLY_INSTANCE"}
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-m", "revetly_cli", *args, "--json",
                                 "--instance", str(root)], stdout=out, stderr=subprocess.DEVNULL,
                                env=env)
        deadline = started + TIMEOUT_S
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                raise SystemExit(f"revetly {' '.join(args)} ran past {TIMEOUT_S} s (a hang)")
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        payload = json.loads(out.read() or b"{}")
    return proc.returncode, payload, wall, int(usage.ru_maxrss)


def build(base: Path, good: int, hostile: bool) -> tuple[Instance, list[Any]]:
    instance = Instance(base / ("hostile" if hostile else "clean") / "acme")
    planted = plant_corpus(instance.git, base / "outside", None if hostile else [], good=good)
    return instance, planted


def measure(good: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="revetly-hostile-") as tmp:
        base = Path(tmp)
        out: dict[str, Any] = {"good": good}
        for hostile in (False, True):
            instance, planted = build(base, good, hostile)
            code, sync, wall, rss = run_child(instance.root, "sync", "--full")
            ccode, check, cwall, crss = run_child(instance.root, "check")
            key = "hostile" if hostile else "clean"
            out[key] = {"sync_exit": code, "sync_outcome": sync.get("outcome"),
                        "sync_s": round(wall, 2), "sync_peak_rss_mib": round(rss / 1024, 1),
                        "check_exit": ccode, "check_s": round(cwall, 2),
                        "check_peak_rss_mib": round(crss / 1024, 1),
                        "landed": sync.get("changed", {}).get("added")}
            if hostile:
                named = {str(p.get("path")): p.get("code") for p in check.get("problems", [])}
                escaped = [c.name for c in planted if named.get(c.path) not in c.codes]
                out["hostile_tried"] = len(planted)
                out["hostile_failed_alone"] = len(planted) - len(escaped)
                out["hostile_escaped"] = escaped
        clean, bad = out["clean"], out["hostile"]
        out["rss_within_clean"] = (bad["sync_peak_rss_mib"]
                                   <= clean["sync_peak_rss_mib"] * RSS_SLACK)
        out["good_all_landed"] = bad["landed"] == good == clean["landed"]
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--good", type=int, default=10_000)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args = parser.parse_args()
    print(f"hostile corpus: {args.good} good files and {len(cases())} hostile cases")
    result = measure(args.good)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "hostile.json").write_text(json.dumps(result, indent=2) + "\n")
    for key in ("clean", "hostile"):
        r = result[key]
        print(f"  {key:8} sync {r['sync_s']:6.2f} s  peak RSS {r['sync_peak_rss_mib']:7.1f} MiB"
              f"  (exit {r['sync_exit']}, {r['sync_outcome']}, {r['landed']} landed)   "
              f"check {r['check_s']:6.2f} s  peak RSS {r['check_peak_rss_mib']:7.1f} MiB"
              f"  (exit {r['check_exit']})")
    print(f"  hostile files tried {result['hostile_tried']}, failed alone "
          f"{result['hostile_failed_alone']}, escaped {result['hostile_escaped'] or 0}")
    ok = (result["rss_within_clean"] and result["good_all_landed"]
          and not result["hostile_escaped"])
    print("  targets met" if ok else "  TARGET MISSED")
    return 0 if ok or not args.strict else 1


if __name__ == "__main__":
    raise SystemExit(main())
