#!/usr/bin/env python3
"""Benchmark of the backlog-md source: a generated Backlog.md project read in place.

    python bench/bench_sources.py                     # 700 tasks, 1,300 commits
    python bench/bench_sources.py --tasks 2000 --commits 4000

Generates (or reuses from bench/.cache/) a git repository holding a Backlog.md project of
``--tasks`` tasks (one in five a dotted sub-task, a milestone per 50 tasks, a decision and a
doc per 25) whose ``--commits`` commits add the files in batches and then change code with
messages naming task ids every way teams spell them (BACK-12, back-12, TASK 12, task-12,
BACK-12..14). An instance made by ``revetly init --from backlog-md`` then reads it; each pass
runs in a fresh Python process:

(a) full pass (``sync(full=True)`` with no .revetly/); (b) incremental, nothing changed;
(c) incremental after one task edit committed in the source repository.

Targets (issue 8): full pass <= 20 s, incremental after one task edit <= 1.5 s (wall time of
the sync call; process start-up is reported beside it). Results: bench/results/sources.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO_ROOT = BENCH.parent
TARGETS = {"full_s": 20.0, "incr_one_s": 1.5}
BASE_TS = 1_735_689_600  # 2025-01-01T00:00:00Z
WORDS = ("invoice", "export", "report", "timer", "sync", "entry", "client", "rate", "budget",
         "webhook", "token", "queue", "retry", "backoff", "import", "calendar", "widget",
         "prompt", "completion", "colour", "config", "idle", "tombstone", "merge", "conflict",
         "field", "workspace", "invite", "currency", "rounding", "archive")
SPELLINGS = ("BACK-{n}", "back-{n}", "TASK {n}", "task-{n}", "BACK-{n}..{m}")


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def task_file(rng: random.Random, i: int, milestones: int) -> tuple[str, str]:
    """(path, text) of generated task number i (every fifth one a sub-task of the one before)."""
    sub = i % 5 == 4
    tid = f"BACK-{i - 1}.{1 + i % 3}" if sub else f"BACK-{i}"
    title = f"{_text(rng, 4).capitalize()} {i}"
    status = rng.choice(["To Do", "In Progress", "Done"])
    front = [
        "---", f"id: {tid}", f"title: {title}", f"status: {status}",
        f"assignee: ['@{rng.choice(['dana', 'li', 'omar', 'sam'])}']",
        f"created_date: '2025-{1 + i % 12:02d}-{1 + i % 28:02d} 10:00'",
        f"labels: [{rng.choice(WORDS)}]", f"milestone: m-{i % milestones}",
        f"dependencies: [BACK-{max(1, i - 3)}]",
    ]
    if sub:
        front.append(f"parent_task_id: BACK-{i - 1}")
    front.append("---")
    ac = "\n".join(f"- [{'x' if rng.random() < 0.4 else ' '}] #{k} {_text(rng, 8)}"
                   for k in range(1, 4))
    body = (f"\n## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\n{_text(rng, 60)}\n"
            f"<!-- SECTION:DESCRIPTION:END -->\n\n## Acceptance Criteria\n<!-- AC:BEGIN -->\n"
            f"{ac}\n<!-- AC:END -->\n")
    name = f"{tid.lower()} - {title.replace(' ', '-')}.md"
    return f"backlog/tasks/{name}", "\n".join(front) + "\n" + body


def generate(dest: Path, tasks: int, commits: int, seed: int = 42) -> dict[str, Any]:
    """Write the project and its history with pygit2; return what was made."""
    import pygit2

    rng = random.Random(seed)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    repo = pygit2.init_repository(str(dest), initial_head="main")
    milestones = max(1, tasks // 50)
    files: list[tuple[str, str]] = [("backlog/config.yml",
                                     'project_name: "Bench"\nprefixes:\n  task: back\n')]
    files += [(f"backlog/milestones/m-{k} - milestone-{k}.md",
               f"---\nid: m-{k}\ntitle: Milestone {k}\n---\n\n{_text(rng, 30)}\n")
              for k in range(milestones)]
    for k in range(1, tasks // 25 + 1):
        files.append((f"backlog/decisions/decision-{k} - decision-{k}.md",
                      f"---\nid: decision-{k}\ntitle: Decision {k} {_text(rng, 3)}\n"
                      f"date: '2025-02-01'\nstatus: accepted\n---\n\n## Context\n\n"
                      f"{_text(rng, 40)}\n\n## Decision\n\n{_text(rng, 20)}\n"))
        files.append((f"backlog/docs/doc-{k} - doc-{k}.md",
                      f"---\nid: doc-{k}\ntitle: Doc {k} {_text(rng, 3)}\n---\n\n"
                      f"{_text(rng, 80)}\n"))
    files += [task_file(rng, i, milestones) for i in range(1, tasks + 1)]
    adding = max(1, min(len(files), commits // 4))
    per_commit = -(-len(files) // adding)
    index = repo.index
    ts = BASE_TS
    parents: list[Any] = []

    def commit(message: str, when: int) -> None:
        nonlocal parents
        index.write()
        tree = index.write_tree()
        sig = pygit2.Signature("Bench", "bench@example.com", when, 0)
        parents = [repo.create_commit("HEAD", sig, sig, message, tree, parents)]

    made = 0
    for start in range(0, len(files), per_commit):
        for rel, text in files[start:start + per_commit]:
            path = dest / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            index.add(rel)
        ts += 600
        commit(f"backlog: add files {start + 1}-{start + per_commit}", ts)
        made += 1
    code = dest / "src" / "app.go"
    code.parent.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    while made < commits:
        n = rng.randint(1, max(1, tasks - 2))
        spelled = rng.choice(SPELLINGS).format(n=n, m=n + 2)
        lines.append(f"// {spelled} {_text(rng, 4)}")
        code.write_text("\n".join(lines[-200:]) + "\n")
        index.add("src/app.go")
        ts += 900
        commit(f"{spelled}: {_text(rng, 5)}", ts)
        made += 1
    return {"tasks": tasks, "files": len(files), "commits": made, "head": str(parents[0])}


CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from revetly_core import Engine
engine = Engine.open(sys.argv[1])
t1 = time.perf_counter()
result = engine.sync(full=sys.argv[2] == "full")
t2 = time.perf_counter()
src = next(s for s in result["sources"] if s["source"].startswith("backlog-md/"))
print(json.dumps({"sync_s": round(t2 - t1, 3), "open_s": round(t1 - t0, 3),
                  "counts": src["counts"], "changed": result["changed"]}))
"""


def measure(instance: Path, mode: str) -> dict[str, Any]:
    """One pass in a fresh interpreter: sync wall time, and the whole process's."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(instance), mode], check=True,
                         capture_output=True, text=True)
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    data["process_s"] = round(time.perf_counter() - start, 3)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--commits", type=int, default=1300)
    parser.add_argument("--regen", action="store_true", help="ignore the cached project")
    parser.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    parser.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_ROOT / "revetly_core" / "src"))
    from revetly_core import Engine

    key = f"backlog-md-{args.tasks}-{args.commits}"
    repo = args.cache_dir / key / "project"
    meta_path = args.cache_dir / key / "meta.json"
    if args.regen or not meta_path.is_file():
        print(f"generating {args.tasks} tasks and {args.commits} commits ...", flush=True)
        meta = generate(repo, args.tasks, args.commits)
        meta_path.write_text(json.dumps(meta))
    else:
        meta = json.loads(meta_path.read_text())
        subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", meta["head"]],
                       check=True)
    instance = args.cache_dir / key / "instance"
    if instance.exists():
        shutil.rmtree(instance)
    Engine.init(instance, source=("backlog-md", str(repo)))
    full = measure(instance, "full")
    again = measure(instance, "incremental")
    tasks = sorted((repo / "backlog" / "tasks").glob("back-*.md"))
    edited = tasks[len(tasks) // 2]
    edited.write_text(edited.read_text().replace("## Description",
                                                 "## Description\n\nBench edit.", 1))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "-C", str(repo), "commit", "-qam", "BACK-1: bench edit"],
                   check=True, env=env)
    one = measure(instance, "incremental")
    results = {"project": meta, "full": full, "incr_none": again, "incr_one": one,
               "edited": str(edited.relative_to(repo)), "targets": TARGETS}
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "sources.json").write_text(json.dumps(results, indent=2))
    print(f"Backlog.md project: {meta['tasks']} tasks, {meta['files']} files, "
          f"{meta['commits']} commits")
    for label, r, target in (("full pass", full, TARGETS["full_s"]),
                             ("incremental, nothing changed", again, None),
                             ("incremental, one task edited", one, TARGETS["incr_one_s"])):
        verdict = "" if target is None else (" ok" if r["sync_s"] <= target else " MISSED")
        print(f"{label:<32} sync {r['sync_s']:>7.3f} s  process {r['process_s']:>7.3f} s  "
              f"read={r['counts']['read']} changed={r['changed']}"
              + (f"  target {target} s{verdict}" if target else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
