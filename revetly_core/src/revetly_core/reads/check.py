"""`revetly check`: every file that breaks the schema and every link to an id not held."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from revetly_core.answers.maintenance import CheckAnswer, CheckProblem, DanglingLink
from revetly_core.config import Config
from revetly_core.connectors.base import FileProblem
from revetly_core.connectors.repository import RepositoryConnector
from revetly_core.ids import IdResolver, id_key
from revetly_core.markdown.criteria import doubled_criteria_problem
from revetly_core.model import WORK_ITEM_TYPES, Artifact
from revetly_core.store.protocols import Store

SEVERITIES = ("error", "warning", "note")
NOTE_CODES = frozenset({"assumed"})
"""A file read leniently: served as read, and check names what was assumed."""
WARNING_CODES = frozenset({"duplicate-id-served", "no-id-skipped", "legacy-unread"})
"""Named so a human looks, but nothing the schema requires is broken."""


def problem_severity(problem: Mapping[str, object]) -> str:
    """A problem's severity: the one its source stated, else by its code (errors by default).
    Only errors and dangling links make check fail; warnings and notes are named, not fatal."""
    stated = problem.get("severity")
    if stated in SEVERITIES:
        return str(stated)
    code = str(problem.get("code"))
    if code in NOTE_CODES:
        return "note"
    return "warning" if code in WARNING_CODES else "error"


def severity_counts(problems: Sequence[Mapping[str, object]]) -> dict[str, int]:
    """How many problems of each severity, every severity named."""
    out = dict.fromkeys(SEVERITIES, 0)
    for p in problems:
        out[problem_severity(p)] += 1
    return out


def parent_cycles(parents: dict[str, str]) -> list[list[str]]:
    """Every cycle in the declared parent map, each listed once from its smallest id."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    for start in sorted(parents):
        path: list[str] = []
        node: str | None = start
        while node is not None and state.get(node, 0) == 0:
            state[node] = 1
            path.append(node)
            node = parents.get(node)
        if node is not None and state.get(node) == 1 and node in path:
            cycle = path[path.index(node):]
            i = cycle.index(min(cycle))
            cycles.append(cycle[i:] + cycle[:i])
        for n in path:
            state[n] = 2
    return cycles


def revises_problems(a: Artifact, arts: dict[str, Artifact]) -> list[CheckProblem]:
    """The revises entries of an artifact aimed at a held artifact that is not a work item."""
    out: list[CheckProblem] = []
    for entry in a.metadata.get("declared", {}).get("revises", []):
        target = arts.get(str(entry.get("id")))
        if target is not None and target.type not in WORK_ITEM_TYPES:
            out.append({
                "path": a.source_path, "id": a.id, "code": "revises-not-work-item",
                "detail": f"revises {target.id}, which is a {target.type}, not a work item",
            })
    return out


def item_problems(arts: dict[str, Artifact]) -> list[CheckProblem]:
    """Per artifact: a work item carrying its criteria twice, then its misaimed revises."""
    problems: list[CheckProblem] = []
    for a in arts.values():
        doubled = (doubled_criteria_problem(a.id, a.source_path, a.body)
                   if a.type in WORK_ITEM_TYPES else None)
        if doubled is not None:
            problems.append(doubled)
        problems.extend(revises_problems(a, arts))
    return problems


def _link_problems(
    a: Artifact, resolver: IdResolver, arts: dict[str, Artifact], config: Config,
    commit_ids: set[str], have_commit_sources: bool,
) -> tuple[list[DanglingLink], list[CheckProblem]]:
    """(dangling links, schema problems) of one artifact's declared fields."""
    dangling: list[DanglingLink] = []
    problems: list[CheckProblem] = []
    declared: dict[str, Any] = a.metadata.get("declared", {})

    def dangle(field: str, target: str) -> None:
        dangling.append({"from": a.id, "field": field, "to": target, "path": a.source_path})

    def held(target: str) -> Artifact | None:
        key = id_key(target)
        hit = resolver.resolve(key) if key else None
        return arts.get(hit) if hit else None

    for field, value in sorted(declared.items()):
        if field == "implemented_by":
            if have_commit_sources:
                for sha in value:
                    if str(sha).lower() not in commit_ids:
                        dangle(field, str(sha))
            continue
        if field == "revises":
            for entry in value:
                target = held(entry["id"])
                if target is None:
                    key = id_key(entry["id"])
                    if key is None or resolver.resolve(key) is None:
                        dangle(field, entry["id"])
                    continue
                for pos in entry.get("criteria", []):
                    if pos > len(target.criteria):
                        problems.append({
                            "path": a.source_path, "id": a.id, "code": "revises-position",
                            "detail": f"revises {target.id} criterion {pos}, but it has "
                                      f"{len(target.criteria)}",
                        })
            continue
        for target in value if isinstance(value, list) else [value]:
            key = id_key(str(target))
            if key is None or resolver.resolve(key) is None:
                dangle(field, str(target))
    if a.parent and a.type in WORK_ITEM_TYPES:
        parent = held(a.parent)
        allowed = config.backlog.parents.get(a.type)
        if parent is not None and allowed is not None and parent.type not in allowed:
            problems.append({
                "path": a.source_path, "id": a.id, "code": "parent-type",
                "detail": f"a {a.type} hangs under {', '.join(allowed)}; {parent.id} is a "
                          f"{parent.type} ([backlog.parents])",
            })
    return dangling, problems


def check_instance(root: Path, config: Config, store: Store | None) -> CheckAnswer:
    """Read every source file as a pass would and name everything that breaks the schema."""
    connector = RepositoryConnector(root, config)
    files = connector.list_files()
    problems: list[CheckProblem] = []
    arts: dict[str, Artifact] = {}
    owner: dict[str, str] = {}
    for path in sorted(files):
        parsed = connector.read_file(path, files[path])
        if isinstance(parsed, FileProblem):
            problems.append({"path": path, "code": parsed.code, "detail": parsed.detail})
            continue
        key = id_key(parsed.id)
        same = f"{key.family}:{key.number}" if key else parsed.id  # padding and case ignored
        if same in owner:
            problems.append({"path": path, "id": parsed.id, "code": "duplicate-id",
                             "detail": f"id {parsed.id} is also declared by {owner[same]}"})
            continue
        owner[same] = path
        arts[parsed.id] = parsed
    commit_ids: set[str] = set()
    held_ids = set(arts)
    if store is not None:
        for aid, typ in store.ids_and_types():
            held_ids.add(aid)
            if typ == "commit":
                commit_ids.add(aid)
    resolver = IdResolver(held_ids)
    dangling: list[DanglingLink] = []
    have_commits = store is not None and bool(config.connectors.commits)
    for a in arts.values():
        d, p = _link_problems(a, resolver, arts, config, commit_ids, have_commits)
        dangling.extend(d)
        problems.extend(p)
    parents = {}
    for a in arts.values():
        if a.parent:
            key = id_key(a.parent)
            target = resolver.resolve(key) if key else None
            if target in arts:
                parents[a.id] = target
    problems.extend(item_problems(arts))
    for cycle in parent_cycles(parents):
        problems.append({
            "path": arts[cycle[0]].source_path, "id": cycle[0], "code": "parent-cycle",
            "detail": "parent cycle: " + " -> ".join([*cycle, cycle[0]]),
        })
    from revetly_core.connectors.sources import check_declared_sources

    source_files, source_problems = check_declared_sources(root, config, store)
    problems.extend(source_problems)
    problems.sort(key=lambda p: (str(p.get("path")), p["code"], str(p.get("detail"))))
    for problem in problems:
        problem["severity"] = problem_severity(problem)
    dangling.sort(key=lambda d: (str(d["path"]), d["field"], d["to"]))
    counts = severity_counts(problems)
    return {
        "ok": counts["error"] == 0 and not dangling,
        "severity_counts": counts,
        "files_checked": len(files) + source_files,
        "artifacts": len(arts),
        "problems": problems,
        "dangling_links": dangling,
        "store_consulted": store is not None,
    }
