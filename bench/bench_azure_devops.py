#!/usr/bin/env python3
"""Benchmark of the azure-devops source: a 2,000-item fake project read through a real instance.

    nice python bench/bench_azure_devops.py                # 2,000 work items
    nice python bench/bench_azure_devops.py --items 10000

The fake Azure DevOps of the test suite (tests/support/fake_azure_devops.py) serves ``--items``
work items (five types, one in five with a parent, one in ten with a discussion comment) on
127.0.0.1. An instance declaring ``[[connectors.azure-devops]]`` then syncs, in this process:

(a) the full pass (first sync: WIQL, every 200-id batch, each type's states, every revisions
    page);
(b) an incremental pass after 10 work items changed (issue 17's target: <= 3 requests, <= 1 s);
(c) a quiet pass (nothing changed: the WIQL query alone).

Beside (a) the floor: the same requests sent by a bare httpx loop (no parsing, no store), in
the same run, so the ratio holds however loaded the machine is. The 1-minute load average is
recorded with each run. Results: bench/results/azure_devops.json.
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
sys.path.insert(0, str(REPO_ROOT))  # the test suite is a package: tests.support.fake_azure_devops

from tests.core.connectors.azure_devops_instance import azure_devops_instance  # noqa: E402
from tests.support.fake_azure_devops import FakeAzureDevOps, serving  # noqa: E402

TARGETS = {"incr_requests": 3, "incr_s": 1.0}
SOURCE = "azure-devops/web"
TYPES = ("User Story", "Bug", "Epic", "Issue", "User Story")


def populate(fake: FakeAzureDevOps, items: int) -> None:
    """``items`` work items of five types; every fifth a child of an epic, every tenth with a
    comment."""
    for n in range(1, items + 1):
        kind = TYPES[n % 5]
        fake.add_item(n, f"Work item {n}: offline sync of the queue", work_item_type=kind,
                      state=fake.states[kind][n % 2][0],
                      description=f"<div>Steps for {n}.</div><div>Then the rest.</div>",
                      tags=("sync",) if n % 3 else (), parent=(n // 50) * 50 or None,
                      assigned_to="Ana Lee" if n % 4 else None)
        if n % 10 == 1:
            fake.touch(n, history=f"<div>Looked at {n}.</div>")


def bare_fetch(fake: FakeAzureDevOps) -> tuple[float, int]:
    """(seconds, requests) of the full pass's requests sent with plain httpx."""
    import httpx

    base, version = fake.base(), {"api-version": "7.1"}
    started, requests = time.perf_counter(), 0
    with httpx.Client(base_url=fake.url) as client:
        wiql = client.post(f"{base}/wiql", params={**version, "timePrecision": "true"},
                           json={"query": "SELECT [System.Id] FROM WorkItems"}).json()
        ids = [w["id"] for w in wiql["workItems"]]
        requests += 1
        for start in range(0, len(ids), 200):
            client.post(f"{base}/workitemsbatch", params=version,
                        json={"ids": ids[start:start + 200], "$expand": "relations"}).json()
            requests += 1
        for kind in sorted(set(TYPES)):
            client.get(f"{base}/workitemtypes/{kind}/states", params=version).json()
            requests += 1
        url: str | None = f"{base}/reporting/workitemrevisions"
        params: dict[str, str] | None = {**version, "$maxPageSize": "1000"}
        while url:
            page = client.get(url, params=params).json()
            requests += 1
            url, params = (page["nextLink"], None) if not page["isLastBatch"] else (None, None)
    return time.perf_counter() - started, requests


def timed_sync(engine: Any, fake: FakeAzureDevOps) -> dict[str, Any]:
    fake.requests.clear()
    started = time.perf_counter()
    summary = engine.sync()
    seconds = time.perf_counter() - started
    counts = {s["source"]: s for s in summary["sources"]}[SOURCE]["counts"]
    return {"seconds": round(seconds, 3), "requests": len(fake.requests),
            "paths": sorted({r.path.removeprefix(fake.base().replace("%20", " "))
                             for r in fake.requests}), "counts": counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args = parser.parse_args()
    fake = FakeAzureDevOps()
    with serving(fake), tempfile.TemporaryDirectory(prefix="bench-ado-") as tmp:
        populate(fake, args.items)
        floor_s, floor_requests = bare_fetch(fake)
        load = os.getloadavg()[0]
        engine = azure_devops_instance(Path(tmp), fake.url)
        full = timed_sync(engine, fake)
        step = max(1, args.items // args.changed)
        for n in range(1, args.items + 1, step)[: args.changed]:
            if n % 2:
                fake.touch(n, **{"System.Title": f"Work item {n}: changed"})
            else:
                fake.touch(n, history="<div>A change note.</div>")
        incremental = timed_sync(engine, fake)
        quiet = timed_sync(engine, fake)
    results = {
        "items": args.items, "changed": args.changed, "load_1m": round(load, 2),
        "floor_bare_httpx": {"seconds": round(floor_s, 3), "requests": floor_requests},
        "full": full, "full_over_floor": round(full["seconds"] / floor_s, 2),
        "incremental_after_changes": incremental, "quiet": quiet, "targets": TARGETS,
        "incr_within_targets": incremental["requests"] <= TARGETS["incr_requests"]
        and incremental["seconds"] <= TARGETS["incr_s"],
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "azure_devops.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
