#!/usr/bin/env python3
"""Benchmark of the github source: a 5,000-issue fake repository read through a real instance.

    nice python bench/bench_github.py                 # 5,000 issues, 100 a page
    nice python bench/bench_github.py --issues 20000

The fake GitHub of the test suite (tests/support/fake_github.py) serves ``--issues`` issues
(one in ten with a comment, one in twenty a pull request) on 127.0.0.1. An instance declaring
``[[connectors.github]]`` then syncs, in this process:

(a) the full pass (first sync: every issue page and every comment page);
(b) an incremental pass after 10 issues changed (issue 17's target: <= 3 requests, <= 1 s);
(c) a quiet pass (nothing changed: one request, answered 304).

Then (d)-(f) the same with ``[connectors.github.projects_v2]``: every issue is an item of one
GitHub Project (v2) with a Status value, read by GraphQL (100 items a page) in a second
instance: (d) its full pass, (e) an incremental pass after 10 items' Status changed on the
board (the issues themselves unchanged), (f) a quiet pass.

Beside (a) the floor: the same pages fetched by a bare httpx loop following ``Link`` (no
parsing, no store), in the same run, so the ratio holds however loaded the machine is. The
1-minute load average is recorded with each run. Results: bench/results/github.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO_ROOT = BENCH.parent
sys.path.insert(0, str(REPO_ROOT))  # the test suite is a package: tests.support.fake_github

from tests.core.connectors.github_instance import github_instance  # noqa: E402
from tests.support.fake_github import FakeGitHub, serving  # noqa: E402

TARGETS = {"incr_requests": 3, "incr_s": 1.0}


def populate(fake: FakeGitHub, issues: int) -> None:
    """``issues`` items: every twentieth a pull request, every tenth issue commented on."""
    labels = (("story",), ("bug",), ("epic",), ("feature", "in-progress"), ("question",))
    for n in range(1, issues + 1):
        fake.add_issue(n, f"Issue {n}: offline sync of the queue", labels=labels[n % 5],
                       body=f"Steps for {n}.\n\nFixes #{max(1, n - 1)}.",
                       parent=(n // 50) * 50 or None, assignees=("ana",) if n % 3 else (),
                       pull_request=n % 20 == 0)
        if n % 10 == 1:
            fake.add_comment(n, f"Looked at {n}.")


PROJECT_TOML = """
[connectors.github.projects_v2]
owner = "acme"
number = 1

[connectors.github.projects_v2.statuses]
Todo = "ready"
"In Progress" = "in-progress"
Done = "done"
"""
OPTIONS = ("Todo", "In Progress", "Done")


def put_on_board(fake: FakeGitHub, issues: int) -> None:
    """Every issue (not the pull requests) on the project, with a Status option."""
    for n in range(1, issues + 1):
        if n % 20:
            fake.add_project_item(n, {"Status": OPTIONS[n % 3], "Priority": "P2"})


def bare_fetch(url: str) -> tuple[float, int]:
    """(seconds, requests) of fetching every issue and comment page with plain httpx."""
    import httpx

    started, requests = time.perf_counter(), 0
    with httpx.Client(base_url=url) as client:
        for path in ("/repos/acme/app/issues", "/repos/acme/app/issues/comments"):
            next_url: str | None = path
            params: dict[str, str] | None = {"state": "all", "per_page": "100",
                                             "sort": "updated", "direction": "asc"}
            while next_url:
                resp = client.get(next_url, params=params)
                requests += 1
                resp.json()
                next_url, params = resp.links.get("next", {}).get("url"), None
    return time.perf_counter() - started, requests


def bare_project_fetch(url: str) -> tuple[float, int]:
    """(seconds, requests) of paging the project's items with plain httpx (no parsing)."""
    import httpx
    from revetly_core.connectors.github_projects import ITEMS_QUERY

    started, requests, after = time.perf_counter(), 0, None
    with httpx.Client(base_url=url) as client:
        while True:
            resp = client.post("/graphql", json={"query": ITEMS_QUERY, "variables": {
                "owner": "acme", "number": 1, "first": 100, "after": after, "values": 50}})
            requests += 1
            info = resp.json()["data"]["repositoryOwner"]["projectV2"]["items"]["pageInfo"]
            if not info["hasNextPage"]:
                return time.perf_counter() - started, requests
            after = info["endCursor"]


def timed_sync(engine: Any, fake: FakeGitHub) -> dict[str, Any]:
    fake.requests.clear()
    started = time.perf_counter()
    summary = engine.sync()
    seconds = time.perf_counter() - started
    counts = {s["source"]: s for s in summary["sources"]}["github/app"]["counts"]
    return {"seconds": round(seconds, 3), "requests": len(fake.requests),
            "paths": sorted({r.path for r in fake.requests}), "counts": counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=5000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args = parser.parse_args()
    fake = FakeGitHub()
    with serving(fake), tempfile.TemporaryDirectory(prefix="bench-github-") as tmp:
        populate(fake, args.issues)
        floor_s, floor_requests = bare_fetch(fake.url)
        load = os.getloadavg()[0]
        engine = github_instance(Path(tmp), fake.url)
        full = timed_sync(engine, fake)
        step = max(1, args.issues // args.changed)
        for n in range(1, args.issues + 1, step)[: args.changed]:
            if n % 20:
                fake.touch(n, title=f"Issue {n}: changed")
            else:
                fake.add_comment(n - 1, "A change note.")
        incremental = timed_sync(engine, fake)
        quiet_first = timed_sync(engine, fake)  # records the listing's ETag
        quiet = timed_sync(engine, fake)
        put_on_board(fake, args.issues)
        board_floor_s, board_floor_requests = bare_project_fetch(fake.url)
        board = github_instance(Path(tmp) / "board", fake.url, extra=PROJECT_TOML)
        project_full = timed_sync(board, fake)
        timed_sync(board, fake)  # records the listing's ETag
        for n in range(1, args.issues + 1, step)[: args.changed]:
            fake.set_project_value(n if n % 20 else n + 1, "Status", "In Progress"
                                   if (n % 3) != 1 else "Done")
        project_incremental = timed_sync(board, fake)
        project_quiet = timed_sync(board, fake)
    results = {
        "issues": args.issues, "changed": args.changed, "load_1m": round(load, 2),
        "floor_bare_httpx": {"seconds": round(floor_s, 3), "requests": floor_requests},
        "full": full, "full_over_floor": round(full["seconds"] / floor_s, 2),
        "incremental_after_changes": incremental, "quiet_after_changes": quiet_first,
        "quiet": quiet, "targets": TARGETS,
        "incr_within_targets": incremental["requests"] <= TARGETS["incr_requests"]
        and incremental["seconds"] <= TARGETS["incr_s"],
        "project_v2": {"items": sum(1 for n in range(1, args.issues + 1) if n % 20),
                       "floor_bare_httpx": {"seconds": round(board_floor_s, 3),
                                            "requests": board_floor_requests},
                       "full": project_full,
                       "incremental_after_board_changes": project_incremental,
                       "quiet": project_quiet},
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "github.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
