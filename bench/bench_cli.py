#!/usr/bin/env python3
"""Benchmark of the CLI one-shot: `revetly search --json` against a bare python + sqlite3 FTS5
query process, side by side on the same instance in one run.

    python bench/bench_cli.py                                  # size 10000, 15 runs of each
    python bench/bench_cli.py --cache-dir /path/to/cache --runs 25

For each size it takes the instance from bench_pass's cache (generated when absent), makes sure
CONTEXT is current (`revetly sync`), builds the plain FTS5 index of the same markdown files on
disk (`raw_fts5.build_index`), writes the bytecode of the three packages (`bench_pass.compile_packages`:
an installed package has it; an editable checkout under PYTHONDONTWRITEBYTECODE would compile
every module on every start), then runs, interleaved, N fresh processes of each of:

- `ours`: `revetly search QUERY --json --instance INST` (the console script);
- `bare`: `raw_fts5.bare_process` — python3 opens the plain index, runs the OR query, prints JSON;
- `cli_start`: python imports `revetly_cli.app` and builds the click command for that search
  line (the CLI's own share of a start: typer and our modules, no engine loaded);
- `typer_adapters`: python imports what typer 0.2x loads to coerce an invoked command's values
  (pydantic and `typer._adapters`): the part of typer's share that the start above leaves out;
- `python`: `python3 -c pass` (the interpreter's floor);
- with `--against DIR` (a checkout or `git archive` of other code, e.g. the commit before a
  change): `against`, the same `revetly search` line run from DIR's three packages (put first on
  PYTHONPATH, their bytecode written first), so a before/after pair is measured side by side in
  one run, and the ratio ours / against.

It reports the median wall and CPU (user + system, from `os.wait4`) of each, the ratios ours/bare,
the 1-minute load average before and after, and the top `-X importtime` entries of one `ours`
run; writes bench/results/cli-<size>.json. Nothing here is a pass/fail test: the issue's target
(ours ≤ 5× bare in CPU and wall) is reported beside the measured ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_pass  # the sibling script: instances and their cache
import raw_fts5  # the plain FTS5 baseline

BENCH_DIR = Path(__file__).resolve().parent
DEFAULT_QUERY = "export dialog filter sort order"
TARGET_RATIO = 5.0
CLI_START_CODE = ("import inspect, sys, revetly_cli.app as a; "
                  "a.command(['search', sys.argv[1], '--json']) "
                  "if inspect.signature(a.command).parameters else a.command()")
"""Builds the click command for the search line (code before the one-command build: the app)."""
PYDANTIC_CODE = ("import importlib, importlib.util, pydantic; "
                 "importlib.util.find_spec('typer._adapters') and importlib.import_module('typer._adapters')")
"""What typer 0.25+ loads to coerce an invoked command's values (older typer: pydantic alone)."""
_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def revetly_command() -> list[str]:
    """The `revetly` console script beside this interpreter, else `python -m revetly_cli`."""
    script = Path(sys.executable).parent / "revetly"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "revetly_cli"]


def ensure_synced(inst: Path) -> None:
    """Bring the instance's CONTEXT up to date before measuring reads (nothing to do when current)."""
    proc = subprocess.run([*revetly_command(), "sync", "--json", "--instance", str(inst)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench: revetly sync failed on {inst}: {proc.stdout[-500:]}{proc.stderr[-500:]}")


def against_env(tree: Path) -> dict[str, str]:
    """The environment that runs the CLI from another checkout's three packages."""
    paths = [str(tree / package / "src") for package in ("revetly_core", "revetly_cli", "revetly_mcp")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def compile_tree(tree: Path) -> None:
    """Write the bytecode of another checkout's packages, as compile_packages does for ours."""
    import compileall

    for package in ("revetly_core", "revetly_cli", "revetly_mcp"):
        compileall.compile_dir(str(tree / package / "src"), quiet=1)


def search_argv(inst: Path, query: str) -> list[str]:
    return [*revetly_command(), "search", query, "--json", "--instance", str(inst)]


def median_of(runs: list[raw_fts5.ProcessRun]) -> dict[str, float]:
    """Median wall and CPU seconds of a series of process runs."""
    return {"wall_s": round(statistics.median(r.wall_s for r in runs), 4),
            "cpu_s": round(statistics.median(r.cpu_s for r in runs), 4)}


def import_profile(argv: list[str], top: int) -> list[dict[str, Any]]:
    """The top-level imports of one run by cumulative time (`-X importtime`), largest first."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    entries = []
    for line in proc.stderr.splitlines():
        found = _IMPORT_LINE.match(line)
        if found and len(found.group(3)) <= 1:  # a module imported by the program itself
            entries.append({"module": found.group(4), "self_ms": int(found.group(1)) / 1000,
                            "cumulative_ms": int(found.group(2)) / 1000})
    entries.sort(key=lambda e: e["cumulative_ms"], reverse=True)
    return entries[:top]


def bench_size(size: int, args: argparse.Namespace, gen: bench_pass.Generator) -> dict[str, Any]:
    inst, _meta = bench_pass.prepare_instance(size, gen, args.cache_dir, args.regen)
    ensure_synced(inst)
    db_path = args.cache_dir / f"raw-fts5-{size}.sqlite"
    db_path.unlink(missing_ok=True)
    conn, build = raw_fts5.build_index(inst, db_path)
    conn.close()
    print(f"[{size}] plain FTS5 index of {build.files} files built in {build.wall_s:.1f} s", flush=True)
    ours_argv = search_argv(inst, args.query)
    print(f"[{size}] bytecode of {bench_pass.compile_packages()} modules written", flush=True)
    commands = {
        "ours": lambda: raw_fts5.run_process(ours_argv),
        "bare": lambda: raw_fts5.bare_process(db_path, args.query),
        "cli_start": lambda: raw_fts5.run_process([sys.executable, "-c", CLI_START_CODE,
                                                   args.query]),
        "typer_adapters": lambda: raw_fts5.run_process([sys.executable, "-c", PYDANTIC_CODE]),
        "python": lambda: raw_fts5.run_process([sys.executable, "-c", "pass"]),
    }
    if args.against is not None:
        compile_tree(args.against)
        env = against_env(args.against)
        commands["against"] = lambda: raw_fts5.run_process(ours_argv, env=env)
    for run in commands.values():  # warm the page cache
        if run().returncode != 0:
            sys.exit("bench: a measured process failed on its warm-up run")
    load_before = os.getloadavg()[0]
    runs: dict[str, list[raw_fts5.ProcessRun]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, run in commands.items():
            runs[name].append(run())
    load_after = os.getloadavg()[0]
    medians = {name: median_of(series) for name, series in runs.items()}
    ratio = {measure: round(medians["ours"][measure] / medians["bare"][measure], 2)
             for measure in ("wall_s", "cpu_s")}
    against = None
    if "against" in medians:
        against = {"code": str(args.against),
                   "over_bare": {m: round(medians["against"][m] / medians["bare"][m], 2)
                                 for m in ("wall_s", "cpu_s")},
                   "ours_over_against": {m: round(medians["ours"][m] / medians["against"][m], 3)
                                         for m in ("wall_s", "cpu_s")}}
    return {
        "size": size, "query": args.query, "runs": args.runs, "files": build.files,
        "load_1min_before": round(load_before, 2), "load_1min_after": round(load_after, 2),
        "median": medians, "ours_over_bare": ratio, "against": against,
        "target_ratio": TARGET_RATIO,
        "within_target": all(v <= TARGET_RATIO for v in ratio.values()),
        "importtime_top": import_profile(ours_argv, args.top),
        "command": ours_argv,
    }


def print_result(r: dict[str, Any]) -> None:
    m = r["median"]
    print(f"\n[{r['size']}] {r['runs']} runs each, load average {r['load_1min_before']} → "
          f"{r['load_1min_after']}")
    print(f"{'process':<16}{'wall s':>10}{'CPU s':>10}")
    for name in ("ours", "against", "bare", "cli_start", "typer_adapters", "python"):
        if name in m:
            print(f"{name:<16}{m[name]['wall_s']:>10.4f}{m[name]['cpu_s']:>10.4f}")
    ratio = r["ours_over_bare"]
    print(f"ours / bare: wall {ratio['wall_s']}×, CPU {ratio['cpu_s']}× "
          f"(target ≤ {r['target_ratio']}×: {'met' if r['within_target'] else 'not met'})")
    if r["against"]:
        a = r["against"]
        print(f"against ({a['code']}) / bare: wall {a['over_bare']['wall_s']}×, CPU "
              f"{a['over_bare']['cpu_s']}×; ours / against: wall {a['ours_over_against']['wall_s']}, "
              f"CPU {a['ours_over_against']['cpu_s']}")
    print("top imports of one `revetly search --json` (cumulative ms):")
    for e in r["importtime_top"]:
        print(f"  {e['cumulative_ms']:>8.1f}  {e['module']}")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description="Benchmark the CLI one-shot (see bench/README.md).")
    ap.add_argument("--sizes", type=bench_pass.parse_sizes, default=bench_pass.parse_sizes("10000"),
                    help="comma-separated instance sizes (default 10000)")
    ap.add_argument("--runs", type=int, default=15, help="processes of each kind (median; default 15)")
    ap.add_argument("--query", default=DEFAULT_QUERY, help="the search both processes run")
    ap.add_argument("--top", type=int, default=12, help="import-profile entries to report")
    ap.add_argument("--gen", help="an instance generator script (as bench_pass.py takes it)")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache",
                    help="where generated instances are kept (default bench/.cache)")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results",
                    help="where cli-<size>.json goes (default bench/results)")
    ap.add_argument("--regen", action="store_true", help="regenerate instances even when cached")
    ap.add_argument("--against", type=Path, default=None,
                    help="another checkout whose `revetly search` runs beside ours (before/after)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args, _unknown = build_parser().parse_known_args(argv)  # nox hands every bench the same options
    args.cache_dir = args.cache_dir.resolve()
    args.results_dir = args.results_dir.resolve()
    args.against = args.against.resolve() if args.against is not None else None
    args.results_dir.mkdir(parents=True, exist_ok=True)
    gen = bench_pass.resolve_gen(args.gen)
    for size in args.sizes:
        result = bench_size(size, args, gen)
        print_result(result)
        out = args.results_dir / f"cli-{size}.json"
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
