#!/usr/bin/env python3
"""Benchmark of the todoist source: a 2,000-task fake Todoist project read through a real
instance.

    nice python bench/bench_todoist.py                # 2,000 tasks, one in four completed
    nice python bench/bench_todoist.py --tasks 10000

The fake Todoist of the test suite (tests/support/fake_todoist.py) serves ``--tasks`` tasks
(one in four completed, one in ten commented on, one in five a sub-task) on 127.0.0.1. An
instance declaring ``[[connectors.todoist]]`` then syncs, in this process:

(a) the full pass (first sync: one full sync, then the completed backfill: 365 days in five
    windows, 200 tasks a page);
(b) an incremental pass after 10 tasks changed (issue 17's target: <= 3 requests, <= 1 s);
(c) a quiet pass (nothing changed).

Beside (a) the floor: the same requests sent by a bare httpx loop (no parsing, no store), in
the same run, so the ratio holds however loaded the machine is. The 1-minute load average is
recorded with each run. Results: bench/results/todoist.json.
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
sys.path.insert(0, str(REPO_ROOT))  # the test suite is a package: tests.support.fake_todoist

from tests.core.connectors.todoist_instance import todoist_instance  # noqa: E402
from tests.support.fake_todoist import COMPLETED, PROJECT_ID, SYNC, FakeTodoist, serving  # noqa: E402

TARGETS = {"incr_requests": 3, "incr_s": 1.0}


def populate(fake: FakeTodoist, tasks: int) -> list[str]:
    """``tasks`` tasks in three sections; returns their ids in the order they were added."""
    labels = (("story",), ("bug",), ("epic",), ("feature",), ("question",))
    sections = [fake.add_section(name)["id"] for name in ("Backlog", "Doing", "Review")]
    ids: list[str] = []
    for n in range(1, tasks + 1):
        parent = ids[n - 5] if n % 5 == 0 and n > 5 else None
        task = fake.add_task(f"Task {n}: offline sync of the queue", labels=labels[n % 5],
                             description=f"Steps for {n}.", section=sections[n % 3],
                             parent=parent, responsible="2671355" if n % 3 else None)
        ids.append(task["id"])
        if n % 4 == 0:
            fake.complete(task["id"])
        if n % 10 == 1:
            fake.add_note(task["id"], f"Looked at {n}.")
    return ids


def bare_fetch(api_url: str, requests_made: list[tuple[str, dict[str, str], dict[str, str]]],
               ) -> tuple[float, int]:
    """(seconds, requests) of sending the full pass's requests again with plain httpx."""
    import httpx

    started = time.perf_counter()
    with httpx.Client() as client:
        for path, query, form in requests_made:
            url = api_url + path.removeprefix("/api/v1")
            resp = client.post(url, data=form) if path == SYNC else client.get(url, params=query)
            resp.json()
    return time.perf_counter() - started, len(requests_made)


def timed_sync(engine: Any, fake: FakeTodoist) -> dict[str, Any]:
    fake.requests.clear()
    started = time.perf_counter()
    summary = engine.sync()
    seconds = time.perf_counter() - started
    counts = {s["source"]: s for s in summary["sources"]}["todoist/app"]["counts"]
    return {"seconds": round(seconds, 3), "requests": len(fake.requests),
            "paths": sorted({r.path for r in fake.requests}), "counts": counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args = parser.parse_args()
    fake = FakeTodoist()
    with serving(fake), tempfile.TemporaryDirectory(prefix="bench-todoist-") as tmp:
        ids = populate(fake, args.tasks)
        load = os.getloadavg()[0]
        engine = todoist_instance(Path(tmp), fake.api_url, project=PROJECT_ID)
        full = timed_sync(engine, fake)
        sent = [(r.path, r.query, r.form) for r in fake.requests]
        floor_s, floor_requests = bare_fetch(fake.api_url, sent)
        step = max(1, args.tasks // args.changed)
        for i in range(0, args.tasks, step)[: args.changed]:
            if i % 3 == 0:
                fake.complete(ids[i])
            elif i % 3 == 1:
                fake.touch(ids[i], content=f"Task {i + 1}: changed")
            else:
                fake.add_note(ids[i], "A change note.")
        incremental = timed_sync(engine, fake)
        quiet = timed_sync(engine, fake)
    completed = [p for p in full["paths"] if p == COMPLETED]
    results = {
        "tasks": args.tasks, "changed": args.changed, "load_1m": round(load, 2),
        "floor_bare_httpx": {"seconds": round(floor_s, 3), "requests": floor_requests},
        "full": full, "full_over_floor": round(full["seconds"] / floor_s, 2),
        "full_reads_completed": bool(completed),
        "incremental_after_changes": incremental, "quiet": quiet, "targets": TARGETS,
        "incr_within_targets": incremental["requests"] <= TARGETS["incr_requests"]
        and incremental["seconds"] <= TARGETS["incr_s"],
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "todoist.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
