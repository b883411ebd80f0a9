"""The pass's history walk, git's `git log` against libgit2's tree diffs, side by side (issue 18).

On the instance `bench_pass.py` caches (`bench/.cache/inst-N/`), the repository source's walk
(`RepositoryConnector._walk_history`: libgit2's commit walk, each commit's changes, the entries
and deletions) is run whole and, as an incremental pass runs it, over the last 1, 3, 5 and 8
commits followed by the scoped read's tree diff (git asked whatever the walk's length, to show
where `GIT_LOG_MIN_COMMITS` stands); each way in
turn, round after round, so a swing of the shared machine's load falls on both alike. CPU is
user + system of this process and of the `git` it ran. The two answers are compared every
round. Printed: median and lowest CPU per way, the load before and after. JSON:
`bench/results/history-N.json`. With ``--commits-repo``, the commits connector's whole read of
that repository (every commit's file list) is timed the same way (`history-commits.json`).

    python bench/bench_history.py --sizes 100000 [--rounds 5] [--commits-repo PATH]

A size with no cached instance is skipped (run `bench_pass.py --sizes N` first).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2
from revetly_core.config import CommitsConnector as CommitsSettings
from revetly_core.config import load_config
from revetly_core.connectors import history_log
from revetly_core.connectors.base import SourceBatch
from revetly_core.connectors.commits import CommitsConnector
from revetly_core.connectors.repository import RepositoryConnector, tree_cache

sys.path.insert(0, str(Path(__file__).parent))
import bench_status  # the sibling script: CPU of each way, round after round

BENCH = Path(__file__).resolve().parent


def walk(root: Path, prior: str | None, path_env: str) -> Callable[[], Any]:
    """The repository source's walk (in the pass's tree cache) with PATH set to ``path_env``,
    git asked for a walk of any length; from a prior head, then the scoped read's diff of its
    tree to HEAD's, as an incremental pass makes it."""
    connector = RepositoryConnector(root, load_config(root))

    def run() -> Any:
        repo = pygit2.Repository(str(root))
        batch = SourceBatch(source="repository")
        shortest, history_log.GIT_LOG_MIN_COMMITS = history_log.GIT_LOG_MIN_COMMITS, 1
        try:
            with tree_cache(repo):
                deletions = connector._walk_history(repo, repo.head.target, prior, batch,
                                                    lambda *a: None)
                if prior is not None:
                    len(repo.diff(repo[prior].tree, repo[repo.head.target].tree))
        finally:
            history_log.GIT_LOG_MIN_COMMITS = shortest
        return batch.history, deletions
    return with_path(path_env, run)


def with_path(path_env: str, run: Callable[[], Any]) -> Callable[[], Any]:
    """``run`` with PATH set to ``path_env`` ("" hides git)."""
    def wrapped() -> Any:
        saved = os.environ.get("PATH", "")
        os.environ["PATH"] = path_env
        try:
            return run()
        finally:
            os.environ["PATH"] = saved
    return wrapped


def commits_read(repo_path: Path) -> Callable[[], Any]:
    """The commits connector's whole read of the repository: (every artifact, its file list)."""
    settings = CommitsSettings(name="code", path=str(repo_path))  # type: ignore[arg-type]
    connector = CommitsConnector(repo_path, settings, "bench")

    def run() -> Any:
        batch = connector.read({}, {}, full=True, now="2030-01-01T00:00:00+00:00")
        return [(a.id, a.metadata["files"], a.metadata.get("files_more")) for a in batch.upserts], {}
    return run


def measure(root: Path, rounds: int) -> dict[str, Any]:
    path = os.environ.get("PATH", "")
    assert shutil.which("git"), "git must be on PATH to compare it with libgit2"
    repo = pygit2.Repository(str(root))
    table = {"whole history, libgit2": walk(root, None, ""),
             "whole history, git log": walk(root, None, path)}
    for back in (1, 3, 5, 8):
        prior = str(repo.revparse_single(f"HEAD~{back}").id)
        table[f"last {back} + scoped diff, libgit2"] = walk(root, prior, "")
        table[f"last {back} + scoped diff, git log"] = walk(root, prior, path)
    return timed(table, str(root), rounds)


def measure_commits(repo_path: Path, rounds: int) -> dict[str, Any]:
    path = os.environ.get("PATH", "")
    assert shutil.which("git"), "git must be on PATH to compare it with libgit2"
    return timed({
        "commits read, libgit2": with_path("", commits_read(repo_path)),
        "commits read, git log": with_path(path, commits_read(repo_path)),
    }, str(repo_path), rounds)


def timed(table: dict[str, Callable[[], Any]], where: str, rounds: int) -> dict[str, Any]:
    """Each way of ``table`` in turn, ``rounds`` times; the ways named alike but for the part
    after the comma must answer alike every round."""
    def alike(answers: dict[str, Any]) -> None:
        for scope in {name.split(",")[0] for name in table}:
            assert answers[f"{scope}, libgit2"] == answers[f"{scope}, git log"], scope

    return bench_status.cpu_rounds(table, where, rounds, size_key="entries",
                                   size_of=lambda answer: len(answer[0]), check=alike)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    parser.add_argument("--commits-repo", type=Path, default=None,
                        help="also time the commits connector's read of this repository")
    args, _ = parser.parse_known_args()  # nox hands every bench the same arguments
    if args.commits_repo is not None:
        report(measure_commits(args.commits_repo, args.rounds), args.rounds,
               args.results_dir / "history-commits.json", str(args.commits_repo))
    for size, root in bench_status.cached_instances(args.sizes, args.cache_dir):
        report(measure(root, args.rounds), args.rounds, args.results_dir / f"history-{size}.json",
               f"size {size}")


def report(result: dict[str, Any], rounds: int, out: Path, label: str) -> None:
    print(f"{label}, {rounds} rounds, load {result['load'][0]:.1f} -> "
          f"{result['load'][1]:.1f} (answers equal every round)")
    for name, row in result["ways"].items():
        print(f"  {name:36s} CPU median {row['cpu_median_s']:.3f} s, "
              f"lowest {row['cpu_min_s']:.3f} s ({row['entries']} entries)")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
