"""`revetly init INSTANCE --from backlog-md|adr REPO`: an instance that reads REPO in place.

Nothing is written into REPO: the new instance declares the project (or decision) folder as a
source, REPO's history as a commits source, and the id families the source's files use.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from revetly_core.answers.maintenance import CodeRepository, InitAnswer, ScaffoldedSource
from revetly_core.connectors.adr import find_adr_folder
from revetly_core.connectors.backlog_md import (
    declared_task_prefix,
    find_project_folder,
    project_settings,
)
from revetly_core.ids import DEFAULT_FAMILIES
from revetly_core.instance.scaffold import commit_scaffold, scaffold_instance
from revetly_core.refusal import Refusal

SOURCE_KINDS = ("backlog-md", "adr")
STATUS_GUESSES = {
    "to do": "ready", "todo": "ready", "backlog": "ready", "ready": "ready",
    "in progress": "in-progress", "doing": "in-progress", "in review": "in-progress",
    "review": "in-progress", "done": "done", "blocked": "parked", "on hold": "parked",
    "cancelled": "discarded", "canceled": "discarded", "won't do": "discarded",
}
"""Status words a Backlog.md config.yml commonly declares, and the Revetly status each means."""


def _q(value: str) -> str:
    return json.dumps(value)


def _families_toml(extra: dict[str, str], dropped: tuple[str, ...] = ()) -> list[str]:
    """[ids.families]: the defaults (less any word kept as an alias) and the source's own."""
    families = {k: v for k, v in DEFAULT_FAMILIES.items() if k not in dropped}
    families.update(extra)
    return ["", "[ids.families]", *(f"{k} = {_q(v)}" for k, v in families.items())]


def status_table(declared: list[str]) -> tuple[dict[str, str], list[str]]:
    """(table, unmapped): a config.yml's statuses beyond the defaults, mapped when the word
    is a common one; the rest are listed for the user to map."""
    table: dict[str, str] = {}
    unmapped: list[str] = []
    for word in declared:
        key = word.strip().casefold()
        if key in ("to do", "in progress", "done"):
            continue
        if key in STATUS_GUESSES:
            table[word] = STATUS_GUESSES[key]
        else:
            unmapped.append(word)
    return table, unmapped


LEGACY_SCAN_FILES = 20_000
"""At most this many file names are looked at to find legacy id families."""


def legacy_families_in(project: Path, prefix: str) -> list[str]:
    """Default id families old task files carry after the task prefix (``task-epic-11.2 -
    Title.md`` names EPIC), found in the project's file names."""
    words = {f for f in DEFAULT_FAMILIES if f not in (prefix, "TASK")}
    spelled = {prefix.casefold(), "task"}
    found: set[str] = set()
    seen = 0
    for _folder, _dirs, names in os.walk(project, followlinks=False):
        for name in names:
            seen += 1
            if seen > LEGACY_SCAN_FILES:
                return sorted(found)
            parts = name.split("-", 2)
            if name.endswith(".md") and len(parts) == 3 and parts[0].casefold() in spelled \
                    and parts[2][:1].isdigit() and parts[1].upper() in words:
                found.add(parts[1].upper())
    return sorted(found)


def backlog_md_section(name: str, rel: str, folder: str, prefix: str,
                       statuses: dict[str, str],
                       legacy: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The [[connectors.backlog-md]] block and the id families it needs."""
    lines = ["", "[[connectors.backlog-md]]", f"name = {_q(name)}", f"path = {_q(rel)}",
             f"folder = {_q(folder)}", f"task_prefix = {_q(prefix)}"]
    if prefix != "TASK":
        lines.append('aliases = ["TASK"]')
    if legacy:
        lines.append("legacy_families = [" + ", ".join(_q(f) for f in legacy) + "]")
    if statuses:
        lines.append("statuses = { " + ", ".join(f"{_q(k)} = {_q(v)}"
                                                 for k, v in statuses.items()) + " }")
    families = {prefix: "task", "DRAFT": "task", "DECISION": "decision", "DOC": "reference",
                "M": "epic"}
    return lines, families


def scaffold_from_source(path: Path, kind: str, repo: str, *,
                         write_hosts: bool = False, auth_issuer: str | None = None) -> InitAnswer:
    """Scaffold an instance at path that reads the repository ``repo`` as a ``kind`` source;
    ``write_hosts`` also writes the host files into ``repo`` (never done unasked)."""
    import pygit2

    if kind not in SOURCE_KINDS:
        raise Refusal("invalid-argument", f"--from {kind}: unknown source kind",
                      f"use one of: {', '.join(SOURCE_KINDS)}")
    repo_path = Path(repo).expanduser().resolve()
    found = pygit2.discover_repository(str(repo_path))
    if found is None:
        raise Refusal("refused", f"--from {kind} {repo}: not a git repository",
                      "pass the folder of the git repository that holds the files")
    repo_root = Path(found).resolve()
    repo_root = repo_root.parent if repo_root.name == ".git" else repo_root
    root = path.expanduser().resolve()
    if root == repo_root or repo_root in root.parents:
        raise Refusal("refused", f"{root} is inside {repo_root}; Revetly never writes into the "
                                 "repository it reads", "choose an instance folder outside it")
    if kind == "backlog-md":
        folder = find_project_folder(repo_root)
        if folder is None:
            raise Refusal("refused", f"{repo_root} holds no Backlog.md project (no backlog/, "
                                     ".backlog/ or backlog.config.yml)",
                          "pass the repository whose backlog/ folder Backlog.md manages")
    else:
        folder = find_adr_folder(repo_root)
        if folder is None:
            raise Refusal("refused", f"{repo_root} holds no decision folder (docs/decisions, "
                                     "docs/adr, doc/adr, ...)",
                          "pass the repository that keeps the architecture decision records")
    payload = scaffold_instance(root, [str(repo_root)], commit=False, auth_issuer=auth_issuer)
    name = payload["commits"][0]["name"]
    rel = payload["commits"][0]["path"]
    config_path = root / "revetly.toml"
    lines = config_path.read_text().rstrip("\n").splitlines()
    source: ScaffoldedSource = {"kind": kind, "name": name, "path": rel, "folder": folder}
    if kind == "backlog-md":
        settings = project_settings(repo_root, folder)
        prefix = declared_task_prefix(settings)
        declared = [str(s) for s in settings.get("statuses", []) or []
                    if isinstance(settings.get("statuses"), list)]
        statuses, unmapped = status_table(declared)
        legacy = legacy_families_in(repo_root / folder, prefix)
        block, families = backlog_md_section(name, rel, folder, prefix, statuses, legacy)
        lines += _families_toml(families, () if prefix == "TASK" else ("TASK",))
        lines += ["", "[backlog.parents]", 'task = ["task", "epic", "story", "feature"]',
                  'story = ["feature", "epic"]', 'feature = ["epic"]',
                  'bug = ["task", "story", "feature", "epic"]']
        lines += block
        source["task_prefix"], source["statuses"] = prefix, statuses
        source["unmapped_statuses"] = unmapped
        if legacy:
            source["legacy_families"] = legacy
    else:
        lines += ["", "[[connectors.adr]]", f"name = {_q(name)}", f"path = {_q(rel)}",
                  f"folder = {_q(folder)}", 'prefix = "ADR"']
        lines += _families_toml({"ADR": "decision"})
    config_path.write_text("\n".join(lines) + "\n")
    payload["source"] = source
    payload["next"] = "run `revetly sync`, then `revetly check` to see what was assumed"
    payload["code_repository"] = code_repository_hosts(root, repo_root, write_hosts)
    return commit_scaffold(payload)


def code_repository_hosts(instance: Path, repo_root: Path, write: bool) -> CodeRepository:
    """The host files for the code repository agents work in: written there only when asked
    (``--write-hosts``), else handed back as a snippet to paste."""
    from revetly_core.instance.scaffold_hosts import all_host_files, host_snippet, write_host_files

    out: CodeRepository = {"path": str(repo_root), "snippet": host_snippet(instance)}
    if write:
        hosts = write_host_files(repo_root, all_host_files(instance))
        out["written"], out["kept"] = hosts["written"], hosts["kept"]
    return out
