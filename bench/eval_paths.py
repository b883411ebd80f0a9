"""Path binding measured on a labelled real corpus: which stories are behind a file.

    python bench/eval_paths.py INSTANCE LABELS [--json OUT]

INSTANCE is a synced Revetly instance reading the corpus (`revetly init --from backlog-md`);
LABELS the folder holding `c_file_to_tasks.jsonl` (one row per file: `file`, `labels` — the
task ids named by the commits that touched it). Nothing here is needed by CI; corpora live
outside the repository.

For each file it ranks the stories two ways and scores recall@10 (labels found in the top 10,
over all labels of the file) and precision@5 (labels in the top 5, over 5):

* revetly: the path walk `get_scope(question='binding', path=...)` serves the head of
  (`walk_path`: renames followed, subject and trailers over body prose, the commit that
  added the file);
* git-log: `git log --follow` over the file, each id ranked by how many of those commits
  name it anywhere in their message (ties: the lower id).

Ids are compared by their numbers (`TASK-24.02`, `task-24.2` and `BACK-24.2` are one id).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from revetly_core.ids import spell_key
from revetly_core.scope.behind import repo_folder, story_finder, walk_path
from revetly_core.scope.path_history import PathHistoryCache

from revetly_core import Engine

_NUMBERS = re.compile(r"^[A-Za-z]+[-_ ]?(\d+(?:\.\d+)*)$")


def id_numbers(artifact_id: str) -> str:
    """An id reduced to its numbers (``TASK-24.02`` -> ``24.2``), the label space's key."""
    m = _NUMBERS.match(artifact_id.strip())
    if not m:
        return artifact_id.upper()
    return ".".join(str(int(p)) for p in m.group(1).split("."))


def scores(ranked: list[str], labels: set[str]) -> tuple[float, float]:
    """(recall@10, precision@5) of a ranking against a label set (both by id numbers)."""
    keys = [id_numbers(r) for r in ranked]
    want = {id_numbers(label) for label in labels}
    recall = len(set(keys[:10]) & want) / len(want) if want else 0.0
    precision = len(set(keys[:5]) & want) / 5
    return recall, precision


def git_log_ranking(engine: Engine, repo: Path, path: str) -> list[str]:
    """The baseline: ids ranked by how many commits touching the file (git log --follow)
    name them anywhere in their message."""
    out = subprocess.run(
        ["git", "-C", str(repo), "log", "--follow", "--format=%x1e%B", "--", path],
        capture_output=True, check=False)
    finder = story_finder(engine.config)
    counts: Counter[str] = Counter()
    for message in out.stdout.decode("utf-8", "replace").split("\x1e"):
        for key in finder.keys(message):
            counts[spell_key(key)] += 1
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def revetly_ranking(engine: Engine, cache: PathHistoryCache, path: str) -> list[str]:
    """Revetly's ranking of the stories behind a file: the path walk get_scope serves."""
    store = engine._store()
    try:
        walk = walk_path(engine.config, store, engine.root, path, cache)
    finally:
        store.close()
    return [w.artifact_id for w in walk.ranked]


def evaluate(instance: Path, labels: Path) -> dict[str, Any]:
    """Mean recall@10 and precision@5 over every labelled file, both rankings."""
    engine = Engine.open(instance)
    if not engine.config.connectors.commits:
        raise SystemExit(f"{instance} declares no commits repository")
    repo = repo_folder(engine.root, engine.config.connectors.commits[0])
    rows = [json.loads(line) for line in (labels / "c_file_to_tasks.jsonl").open()]
    rows = [r for r in rows if r.get("labels")]
    cache = PathHistoryCache()
    totals = {"revetly": [0.0, 0.0], "git-log": [0.0, 0.0]}
    for r in rows:
        want = set(r["labels"])
        for name, ranked in (("revetly", revetly_ranking(engine, cache, r["file"])),
                             ("git-log", git_log_ranking(engine, repo, r["file"]))):
            recall, precision = scores(ranked, want)
            totals[name][0] += recall
            totals[name][1] += precision
    n = max(1, len(rows))
    return {"files": len(rows), **{
        name: {"recall@10": round(t[0] / n, 3), "precision@5": round(t[1] / n, 3)}
        for name, t in totals.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("instance", type=Path)
    parser.add_argument("labels", type=Path)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    result = evaluate(args.instance, args.labels)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
