"""One call that plans a synthetic instance and writes what was asked for."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from revetly_core.synthetic.coderepo import CodeHistory, CodeRepoWriter
from revetly_core.synthetic.history import write_history, write_tree
from revetly_core.synthetic.manifest import manifest
from revetly_core.synthetic.plan import Plan, plan_instance


@dataclass
class Generated:
    """The plan, its ground truth and a summary of what was written, with timings."""

    plan: Plan
    manifest: dict[str, Any]
    summary: dict[str, Any] = field(default_factory=dict)


def _empty_or_absent(path: Path) -> None:
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ValueError(f"{path} exists and is not an empty folder")


def config_files(name: str, out: Path, code_repo: Path | None) -> dict[str, bytes]:
    """revetly.toml and .gitignore as `revetly init` writes them, the code repository declared."""
    from revetly_core.instance.scaffold import default_config_text

    commits = ([("code", os.path.relpath(code_repo.resolve(), out.resolve()))]
               if code_repo is not None else [])
    return {"revetly.toml": default_config_text(name, commits).encode(),
            ".gitignore": b".revetly/\n"}


def generate(n: int, seed: int = 42, out: Path | None = None, git: bool = False,
             code_repo: Path | None = None, commits: int = 300,
             manifest_file: Path | None = None, config: bool = False) -> Generated:
    """Plan n live artifacts for seed; write the instance to out (as git history when git),
    a code repository of `commits` commits to code_repo, and the ground truth to manifest_file.
    With config, out also gets the revetly.toml of `revetly init` (a ready instance).
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    for target in (out, code_repo):
        if target is not None:
            _empty_or_absent(target)
    if out is not None and code_repo is not None:
        a, b = out.resolve(), code_repo.resolve()
        if a == b or a in b.parents or b in a.parents:
            raise ValueError("the instance and the code repository must not contain each other")
    started = time.perf_counter()
    phases: dict[str, float] = {}

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        phases[name] = round(now - since, 2)
        return now

    plan = plan_instance(n, seed)
    mark = lap("plan", started)
    code: CodeHistory | None = None
    if code_repo is not None:
        code = CodeRepoWriter(plan, commits).write(code_repo)
        for record in plan.of_kind("delivery"):
            record.implemented_by = code.implemented.get(record.id, [])
        mark = lap("code_repo", mark)
    instance_commits = None
    if out is not None:
        extra = config_files(f"synthetic-{n}", out, code_repo) if config else None
        if git:
            instance_commits = write_history(plan, out, extra)
            mark = lap("history", mark)
        else:
            write_tree(plan, out, extra)
            mark = lap("files", mark)
    truth = manifest(plan, code)
    if manifest_file is not None:
        manifest_file.write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n",
                                 encoding="utf-8")
    summary = {
        "n": n, "seed": seed, "out": str(out) if out else None, "counts": truth["counts"],
        "deleted": len(truth["deleted"]), "edited": len(truth["edited"]),
        "superseding": sum(1 for i in plan.items if i.supersedes),
        "revising": sum(1 for i in plan.items if i.revises),
        "explicit_refs": len(truth["explicit_refs"]),
        "title_mentions": len(truth["title_mentions"]),
        "implemented_by_records": len(truth["implemented_by"]),
        "instance_commits": instance_commits,
        "code_repo": str(code_repo) if code_repo else None,
        "code_commits": code.commits if code else None,
        "phases": phases, "seconds": round(time.perf_counter() - started, 2),
    }
    return Generated(plan, truth, summary)
