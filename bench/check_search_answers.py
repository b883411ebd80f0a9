#!/usr/bin/env python3
"""Whether a change to the search path kept search_context's answers: same ids, order, passages,
marks and facts over the bench's queries on one synced instance.

    python bench/check_search_answers.py INSTANCE --save /tmp/answers-before.json    # on the old code
    python bench/check_search_answers.py INSTANCE --compare /tmp/answers-before.json # on the new code

The queries are those `bench_reads.py` times (`python -m revetly_core.synthetic --dump-queries 50
--seed 42`, or --gen's); each is answered at limit 10 and at limit 50. The answers are compared
whole (every key of the payload, freshness too: save and compare with no pass in between), after
one JSON round trip. Run the old code with its source
first on `PYTHONPATH` (e.g. `git archive BASE revetly_core | tar -x -C /tmp/base`, then
`PYTHONPATH=/tmp/base/revetly_core/src`). Exits 1 when an answer differs, and names the first
differing key of each. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_pass  # the sibling script: the generator lookup
import bench_reads  # the queries the read bench times

LIMITS = (10, 50)


def answers(instance: Path, queries: list[str]) -> dict[str, Any]:
    """'LIMIT query' -> search_context's answer, as JSON gives it back."""
    from revetly_core import Engine

    engine = Engine.open(instance)
    out = {f"{limit} {q}": engine.search_context(q, limit=limit) for q in queries for limit in LIMITS}
    return dict(json.loads(json.dumps(out, sort_keys=True)))


def first_difference(before: Any, after: Any, path: str = "") -> str | None:
    """The path of the first place two JSON values differ, None when they are equal."""
    if type(before) is not type(after):
        return path or "/"
    if isinstance(before, dict):
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after:
                return f"{path}/{key}"
            found = first_difference(before[key], after[key], f"{path}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(before, list):
        for i, (b, a) in enumerate(zip(before, after, strict=False)):
            found = first_difference(b, a, f"{path}/{i}")
            if found is not None:
                return found
        return None if len(before) == len(after) else f"{path}/#{min(len(before), len(after))}"
    return None if before == after else (path or "/")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Compare search_context's answers before and after a change.")
    ap.add_argument("instance", type=Path, help="a synced instance (e.g. bench/.cache/inst-10000)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", type=Path, help="write the answers of the code on sys.path here")
    mode.add_argument("--compare", type=Path, help="compare them with answers saved before")
    ap.add_argument("--gen", help="the instance generator (as bench_reads.py's --gen)")
    args = ap.parse_args(argv)
    queries = bench_reads.load_queries(bench_pass.resolve_gen(args.gen), bench_reads.QUERY_COUNT)
    got = answers(args.instance, queries)
    if args.save is not None:
        args.save.write_text(json.dumps(got, sort_keys=True, indent=1) + "\n")
        print(f"{len(got)} answers written to {args.save}")
        return 0
    saved = json.loads(args.compare.read_text())
    differing = {key: first_difference(saved.get(key), got[key]) for key in got}
    differing = {k: where for k, where in differing.items() if where is not None}
    missing = sorted(set(saved) - set(got))
    for key, where in sorted(differing.items()):
        print(f"differs: {key!r} at {where}")
    for key in missing:
        print(f"not asked this time: {key!r}")
    print(f"{len(got) - len(differing)} of {len(got)} answers identical"
          f"{'' if not missing else f', {len(missing)} saved answers not asked'}")
    return 1 if differing or missing else 0


if __name__ == "__main__":
    sys.exit(main())
