#!/usr/bin/env python3
"""The full pass's own parts, each measured alone over one instance's files (issue 18).

    python bench/bench_pass_parts.py [INSTANCE]          # default: bench/.cache/inst-10000
    PYTHONPATH=/path/to/other/revetly_core/src python bench/bench_pass_parts.py INSTANCE

Reads every markdown file of ``backlog/``, ``notes/`` and ``records/`` once, then times, best
of ``--rounds`` (CPU of this process): the frontmatter split and load of every file, every
file's real path below the instance (``fsread.contained``), the index analysis of every body,
and, when the instance has a store, the re-link's scan of every artifact and its title scan
of every body. Run it with two engine versions on one instance (PYTHONPATH first) to compare
them part by part.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
FOLDERS = ("backlog", "notes", "records")


def best_cpu(work: Callable[[], object], rounds: int) -> float:
    """The least CPU seconds of ``rounds`` runs of work."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def title_scan(store: Any) -> Callable[[], object]:
    """The re-link's title scan of a full pass: every held phrase into one `TitleIndex`, then
    every non-commit body's tokens looked through it (the index built inside the timing: the
    automaton is built on the first scan)."""
    from revetly_core.ingest.linker import TitleIndex, tokens

    phrases = [(owner, tuple(spelled.split(" "))) for owner, spelled in store.all_phrases()]
    bodies = [a.body for a in store.all_artifacts() if a.type != "commit"]

    def scan() -> None:
        index = TitleIndex()
        for owner, phrase in phrases:
            index.add(owner, [phrase])
        for body in bodies:
            index.found_in(tokens(body))

    return scan


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instance", nargs="?", type=Path, default=BENCH_DIR / ".cache" / "inst-10000")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    root = args.instance
    if not root.is_dir():
        sys.exit(f"no instance at {root}: run bench/bench_pass.py first")
    from revetly_core.fsread import contained
    from revetly_core.markdown.frontmatter import split_frontmatter
    from revetly_core.store.db import Store
    from revetly_core.store.keyword import IndexAnalyzer

    import revetly_core

    rels = sorted(f"{d}/{name}" for d in FOLDERS if (root / d).is_dir()
                  for name in os.listdir(root / d) if name.endswith(".md"))
    texts = [(root / rel).read_text(encoding="utf-8") for rel in rels]
    bodies = [split_frontmatter(t)[1] for t in texts]
    real_root = os.path.realpath(root)

    def analysis() -> None:
        analyzer = IndexAnalyzer()
        for body in bodies:
            analyzer.joined(body)

    parts: dict[str, Callable[[], object]] = {
        "frontmatter": lambda: [split_frontmatter(t) for t in texts],
        "real paths": lambda: [contained(root, rel, real_root) for rel in rels],
        "index analysis": analysis,
    }
    db = root / ".revetly" / "context.db"
    store = Store(db) if db.is_file() else None
    if store is not None:
        parts["re-link scan"] = lambda: list(store.all_artifacts())
        parts["title scan"] = title_scan(store)
    result = {"engine": str(Path(revetly_core.__file__).parent), "files": len(rels),
              "load": os.getloadavg()[0],
              "cpu_s": {name: round(best_cpu(work, args.rounds), 3) for name, work in parts.items()}}
    if store is not None:
        store.close()
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
