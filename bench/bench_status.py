"""Each way a pass could learn what changed in a work tree, timed side by side (issue 18).

On the instance `bench_pass.py` caches (`bench/.cache/inst-N/`, as its last run left it), every
way is called in turn, round after round, so a swing of the shared machine's load falls on all
alike; each call's CPU is user + system of this process and of the `git` it ran. Printed: the
median and the lowest per way, and the load before and after. JSON: `bench/results/status-N.json`.

    python bench/bench_status.py --sizes 100000 [--rounds 7]

A size with no cached instance is skipped (run `bench_pass.py --sizes N` first).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygit2
from revetly_core.connectors.worktree_status import GIT_STATUS_ARGS, git_environment

BENCH = Path(__file__).resolve().parent

FOLDERS = ("backlog", "notes", "records")


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def git_run(root: Path, *args: str) -> Callable[[], int]:
    def run() -> int:
        out = subprocess.run(["git", *args], cwd=root, env=git_environment(),
                             capture_output=True, check=True).stdout
        return out.count(b"\0")
    return run


def stat_walk(root: Path) -> Callable[[], int]:
    """Our own walk: every entry of the source folders lstat'ed relative to its folder's fd
    (the cheapest way Python has to the stat data a comparison with a record would need)."""
    def run() -> int:
        n = 0
        stack = [f for f in FOLDERS if (root / f).is_dir()]
        while stack:
            rel = stack.pop()
            fd = os.open(root / rel, os.O_RDONLY | os.O_DIRECTORY)
            try:
                for name in os.listdir(fd):
                    st = os.lstat(name, dir_fd=fd)
                    n += 1
                    if st.st_mode & 0o170000 == 0o040000:
                        stack.append(f"{rel}/{name}")
            finally:
                os.close(fd)
        return n
    return run


def ways(root: Path) -> dict[str, Callable[[], int]]:
    def libgit2(untracked: str) -> Callable[[], int]:
        return lambda: len(pygit2.Repository(str(root)).status(untracked_files=untracked))

    def index_to_workdir() -> int:
        flags = (pygit2.enums.DiffOption.INCLUDE_UNTRACKED
                 | pygit2.enums.DiffOption.RECURSE_UNTRACKED_DIRS)
        return len(pygit2.Repository(str(root)).index.diff_to_workdir(flags))

    out = {
        "libgit2 status (untracked all): before": libgit2("all"),
        "libgit2 status (untracked no)": libgit2("no"),
        "libgit2 index.diff_to_workdir + untracked": index_to_workdir,
        "python stat walk (lstat per entry, fd-relative)": stat_walk(root),
    }
    if shutil.which("git"):
        out |= {
            "git status, as the pass asks it: after": git_run(root, *GIT_STATUS_ARGS),
            "git status -uno": git_run(root, "--no-optional-locks", "status", "--porcelain",
                                       "-z", "-uno"),
            "git status, untracked cache stored": git_run(
                root, "-c", "core.untrackedCache=true", *GIT_STATUS_ARGS),
        }
    return out


def cpu_rounds(table: dict[str, Callable[[], Any]], where: str, rounds: int, *,
               size_key: str, size_of: Callable[[Any], int],
               check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Each way of ``table`` in turn, ``rounds`` times, so a swing of the load falls on all
    alike: per way its CPU median, lowest and every round, and ``size_of`` its answer under
    ``size_key``; ``check`` sees each round's answers."""
    timings: dict[str, list[float]] = {name: [] for name in table}
    sizes: dict[str, int] = {}
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        answers: dict[str, Any] = {}
        for name, way in table.items():
            start = cpu_seconds()
            answers[name] = way()
            timings[name].append(cpu_seconds() - start)
            sizes[name] = size_of(answers[name])
        if check is not None:
            check(answers)
    load_after = os.getloadavg()[0]
    return {
        "instance": where, "rounds": rounds, "load": [load_before, load_after],
        "ways": {name: {"cpu_median_s": statistics.median(v), "cpu_min_s": min(v),
                        "cpu_s": v, size_key: sizes[name]} for name, v in timings.items()},
    }


def measure(root: Path, rounds: int) -> dict[str, Any]:
    has_git = shutil.which("git") is not None
    if has_git:  # the untracked cache lives in the index: write it, and take it out after
        subprocess.run(["git", "update-index", "--untracked-cache"], cwd=root, check=True,
                       env=git_environment(), capture_output=True)
        git_run(root, "-c", "core.untrackedCache=true", "status", "--porcelain", "-z")()
    try:
        return cpu_rounds(ways(root), str(root), rounds, size_key="answer", size_of=int)
    finally:
        if has_git:
            subprocess.run(["git", "update-index", "--no-untracked-cache"], cwd=root,
                           check=True, env=git_environment(), capture_output=True)


def cached_instances(sizes: str, cache_dir: Path) -> Iterator[tuple[int, Path]]:
    """(size, folder) of each size in ``sizes`` ("10000,100000") whose instance `bench_pass.py`
    has cached; a size without one is named and skipped."""
    for size in (int(s) for s in sizes.split(",") if s):
        root = cache_dir / f"inst-{size}"
        if not (root / ".git").is_dir():
            print(f"size {size}: no cached instance at {root}; run bench_pass.py first")
            continue
        yield size, root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args, _ = parser.parse_known_args()  # nox hands every bench the same arguments
    for size, root in cached_instances(args.sizes, args.cache_dir):
        result = measure(root, args.rounds)
        print(f"size {size}, {args.rounds} rounds, load {result['load'][0]:.1f} -> "
              f"{result['load'][1]:.1f}")
        for name, row in result["ways"].items():
            print(f"  {name:50s} CPU median {row['cpu_median_s']:.3f} s, "
                  f"lowest {row['cpu_min_s']:.3f} s (answer size {row['answer']})")
        args.results_dir.mkdir(parents=True, exist_ok=True)
        (args.results_dir / f"status-{size}.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
