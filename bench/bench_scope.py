#!/usr/bin/env python3
"""Benchmark of the scope reads: binding (artifact, topic, path), drift, deltas, authoring.

    python bench/bench_scope.py                  # size 10000, code repository of 5000 commits
    python bench/bench_scope.py --regen          # ignore the cached instance

Generates (once, cached under bench/.cache/scope-<size>/) an instance with the generator
``--git --code-repo ... --commits M``, so delivery records name real commits; adds
``[[connectors.commits]]`` for the code repository to the revetly.toml of `revetly init`,
commits it and runs a full read pass. Then, on one warm Engine in this process, times:

* binding for the epic with the most descendants (target: ≥ 200 descendants, ≤ 200 ms p50);
* topic binding over the generator's queries (≤ 150 ms p50);
* path binding for the most-touched file, first call (no cached git walk; ≤ 1 s worst);
* get_authoring_context over the same queries (≤ 300 ms p50);
* drift and deltas over the whole project (≤ 300 ms p50 each).

Writes bench/results/scope-<size>.json and prints a table. See bench/README.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_pass  # the sibling script: generator lookup, git helper, seed
import bench_reads  # percentile stats and the query dump

SCRIPT = Path(__file__).resolve()
BENCH_DIR = SCRIPT.parent
RUNS = 20
WARMUP = 3
QUERIES = 20
PATHS = 5
TARGETS_MS = {
    "binding_epic_p50_ms": 200.0,
    "binding_topic_p50_ms": 150.0,
    "binding_path_first_worst_ms": 1000.0,
    "authoring_p50_ms": 300.0,
    "drift_p50_ms": 300.0,
    "deltas_p50_ms": 300.0,
}
MIN_EPIC_DESCENDANTS = 200
UMBRELLA = "EPIC-9000"
CACHE_VERSION = 2


def umbrella_epic(inst: Path) -> int:
    """Hang the largest generated epics under one more epic until it holds ≥ 200 descendants.

    the generator spreads a 10k backlog over 100 epics (well under 200 descendants each); the
    binding target is stated for an epic with ≥ 200, so the bench declares one. Returns how
    many epics it hangs beneath UMBRELLA."""
    import re

    sizes: collections.Counter[str] = collections.Counter()
    parent_of: dict[str, str] = {}
    for f in (inst / "backlog").glob("*.md"):
        m = re.search(r"^parent: (\S+)$", f.read_text(encoding="utf-8"), re.M)
        if m:
            parent_of[f.stem] = m.group(1)
    for child in parent_of:
        node, seen = child, set()
        while node in parent_of and node not in seen:
            seen.add(node)
            node = parent_of[node]
        if node.startswith("EPIC-"):
            sizes[node] += 1
    chosen, total = [], 0
    for epic, n in sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])):
        if total >= MIN_EPIC_DESCENDANTS + 20:
            break
        chosen.append(epic)
        total += n + 1
    for epic in chosen:
        f = inst / "backlog" / f"{epic}.md"
        text = f.read_text(encoding="utf-8")
        f.write_text(text.replace("\ntype: epic\n", f"\ntype: epic\nparent: {UMBRELLA}\n", 1),
                     encoding="utf-8")
    (inst / "backlog" / f"{UMBRELLA}.md").write_text(
        f"---\nid: {UMBRELLA}\ntitle: \"Bench umbrella epic\"\ntype: epic\nstatus: in-progress\n"
        f"---\n\nThe epics {', '.join(chosen)} hang beneath this one.\n", encoding="utf-8")
    return len(chosen)


def prepare(
    size: int, commits: int, gen: bench_pass.Generator, cache: Path, regen: bool
) -> tuple[Path, Path, dict[str, Any]]:
    """The cached instance and code repository, synced; generated when absent or stale."""
    folder = cache / f"scope-v{CACHE_VERSION}-{size}-{commits}"
    inst, code, meta_path = folder / "inst", folder / "code", folder / "meta.json"
    gen_sha = gen.digest
    if not regen and meta_path.is_file() and (inst / ".revetly" / "context.db").is_file():
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        if meta.get("gen_sha256") == gen_sha:
            print(f"[{size}] reusing {folder}", flush=True)
            return inst, code, meta
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    print(f"[{size}] generating instance + {commits}-commit code repository ...", flush=True)
    t0 = time.perf_counter()
    gen.run("--n", str(size), "--out", str(inst), "--git", "--code-repo", str(code),
            "--commits", str(commits), "--seed", str(bench_pass.SEED))
    gen_s = time.perf_counter() - t0
    from revetly_core.instance.scaffold import default_config_text

    config = default_config_text(f"bench-scope-{size}", [])
    config += f'\n[[connectors.commits]]\nname = "code"\npath = "{code.as_posix()}"\n'
    (inst / "revetly.toml").write_text(config, encoding="utf-8")
    (inst / ".gitignore").write_text(".revetly/\n", encoding="utf-8")
    hung = umbrella_epic(inst)
    bench_pass.git(inst, "add", "-A")
    bench_pass.git(inst, "commit", "-q", "-m", "Add revetly.toml",
                   env={"GIT_AUTHOR_DATE": bench_pass.FIXED_COMMIT_DATE,
                        "GIT_COMMITTER_DATE": bench_pass.FIXED_COMMIT_DATE})
    from revetly_core import Engine

    t0 = time.perf_counter()
    outcome = Engine.open(inst).sync(full=True)["outcome"]
    meta = {"size": size, "commits": commits, "gen_sha256": gen_sha, "umbrella_over": hung,
            "gen_seconds": round(gen_s, 2),
            "full_pass_seconds": round(time.perf_counter() - t0, 2), "pass_outcome": outcome}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return inst, code, meta


def biggest_epic(engine: Any) -> tuple[str, int]:
    """The epic with the most declared descendants, and how many."""
    from revetly_core.scope.members import walk_members

    graph = engine.graph()
    epics = sorted(n for n, d in graph.nodes(data=True) if d.get("type") == "epic")
    best = max(epics, key=lambda e: (sum(1 for m in walk_members(graph, [e]).by_id.values()
                                         if m.position == "beneath"), e))
    count = sum(1 for m in walk_members(graph, [best]).by_id.values() if m.position == "beneath")
    return best, count


def busiest_paths(code: Path, count: int) -> list[tuple[str, int]]:
    """The files touched by the most commits, by `git log --name-only`."""
    out = subprocess.run(["git", "-C", str(code), "log", "--name-only", "--format="],
                         check=True, capture_output=True, text=True).stdout
    touched = collections.Counter(line for line in out.splitlines() if line.strip())
    return sorted(touched.items(), key=lambda kv: (-kv[1], kv[0]))[:count]


def timed_runs(call: Any, runs: int = RUNS, warmup: int = WARMUP) -> dict[str, Any]:
    for _ in range(warmup):
        call()
    times = [bench_reads.timed(call)[0] for _ in range(runs)]
    return bench_reads.latency_stats(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--commits", type=int, default=5_000)
    ap.add_argument("--gen", default=None)
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results")
    ap.add_argument("--sizes", default=None, help="accepted for `nox -s bench -- --sizes ...`; "
                    "the first size is used")
    args = ap.parse_args(argv)
    size = int(args.sizes.split(",")[0]) if args.sizes else args.size
    gen = bench_pass.resolve_gen(args.gen)
    inst, code, meta = prepare(size, args.commits, gen, args.cache_dir, args.regen)

    from revetly_core.scope.path_history import PathHistoryCache

    from revetly_core import Engine

    engine = Engine.open(inst)
    t0 = time.perf_counter()
    engine.graph()
    graph_s = time.perf_counter() - t0
    queries = bench_reads.load_queries(gen, QUERIES)
    epic, descendants = biggest_epic(engine)
    result: dict[str, Any] = {"size": size, "commits": args.commits, "meta": meta,
                              "graph_build_ms": round(graph_s * 1000, 1),
                              "load": bench_reads.load_avg()}

    result["binding_epic"] = {"epic": epic, "descendants": descendants, **timed_runs(
        lambda: engine.get_scope("binding", artifact_id=epic))}
    qi = iter(queries * 10)
    result["binding_topic"] = timed_runs(lambda: engine.get_scope("binding", topic=next(qi)))
    qi = iter(queries * 10)
    result["authoring"] = timed_runs(lambda: engine.get_authoring_context(next(qi)))
    result["drift"] = timed_runs(lambda: engine.get_scope("drift"), runs=10)
    result["deltas"] = timed_runs(lambda: engine.get_scope("deltas"), runs=10)
    result["deltas_ingest"] = timed_runs(lambda: engine.get_scope("deltas", clock="ingest"), runs=10)

    paths = busiest_paths(code, PATHS)
    first: list[float] = []
    warm: list[float] = []
    behind: list[int] = []
    for path, _n in paths:
        engine._path_cache = PathHistoryCache()  # a first call: no git walk cached
        sec, payload = bench_reads.timed(lambda p=path: engine.get_scope("binding", path=p))
        first.append(sec)
        behind.append(len(payload.get("behind", [])))
        warm.append(bench_reads.timed(lambda p=path: engine.get_scope("binding", path=p))[0])
    result["binding_path"] = {"paths": [{"path": p, "commits_touching": n} for p, n in paths],
                              "first": bench_reads.latency_stats(first),
                              "cached": bench_reads.latency_stats(warm), "behind_rows": behind}
    cold = Engine.open(inst)
    sec, _ = bench_reads.timed(lambda: cold.get_scope("binding", path=paths[0][0]))
    result["binding_path"]["cold_engine_first_ms"] = round(sec * 1000, 1)

    measured = {
        "binding_epic_p50_ms": result["binding_epic"]["p50_ms"],
        "binding_topic_p50_ms": result["binding_topic"]["p50_ms"],
        "binding_path_first_worst_ms": result["binding_path"]["first"]["max_ms"],
        "authoring_p50_ms": result["authoring"]["p50_ms"],
        "drift_p50_ms": result["drift"]["p50_ms"],
        "deltas_p50_ms": result["deltas"]["p50_ms"],
    }
    result["targets"] = [{"name": k, "limit_ms": TARGETS_MS[k], "measured_ms": v,
                          "met": v <= TARGETS_MS[k]} for k, v in measured.items()]
    result["epic_has_enough_descendants"] = descendants >= MIN_EPIC_DESCENDANTS
    args.results_dir.mkdir(parents=True, exist_ok=True)
    out = args.results_dir / f"scope-{size}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nscope reads on {size} artifacts, {args.commits} commits "
          f"(epic {epic}: {descendants} descendants; graph build {result['graph_build_ms']} ms)")
    for t in result["targets"]:
        print(f"  {t['name']:<30} {t['measured_ms']:>9.1f} ms  (≤ {t['limit_ms']:.0f})  "
              f"{'ok' if t['met'] else 'MISSED'}")
    print(f"  path binding, cold engine first call {result['binding_path']['cold_engine_first_ms']} ms;"
          f" cached p50 {result['binding_path']['cached']['p50_ms']} ms")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
