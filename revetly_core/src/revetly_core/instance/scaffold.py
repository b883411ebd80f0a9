"""`revetly init`: a new instance with its folders, configuration and agent-host wiring."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from revetly_core.refusal import Refusal

FOLDERS = ("backlog", "notes", "records")


def _toml_string(value: str) -> str:
    return json.dumps(value)


def default_config_text(name: str, commits: list[tuple[str, str]]) -> str:
    """The revetly.toml `revetly init` writes: one project, the three folders, code repos."""
    lines = [
        "# Revetly instance configuration. See docs/configuration.md for every setting.",
        "",
        "[instance]",
        f"name = {_toml_string(name)}",
        f"default_project = {_toml_string(name)}",
        "",
        f"[projects.{_toml_string(name)}]",
        "imports = []",
        "",
        "[connectors.repository]",
        'paths = ["backlog", "notes", "records"]',
    ]
    for repo_name, path in commits:
        lines += [
            "",
            "[[connectors.commits]]",
            f"name = {_toml_string(repo_name)}",
            f"path = {_toml_string(path)}",
        ]
    return "\n".join(lines) + "\n"


def mcp_json() -> dict[str, Any]:
    """The .mcp.json agent hosts read to start Revetly's MCP server for this instance."""
    return {"mcpServers": {"revetly": {"command": "revetly", "args": ["serve", "--instance", "."]}}}


def write_host_commands(root: Path) -> list[str]:
    """Write the five prompts as host command files (Claude Code, VS Code); keep existing ones."""
    from revetly_core.surface.prompts import host_command_files

    written: list[str] = []
    for rel, text in host_command_files().items():
        target = root / rel
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        written.append(rel)
    return written


def _safe_name(path: Path, fallback: str = "revetly") -> str:
    """A configuration name from a folder name: ASCII letters, digits, '.', '_', '-'."""
    import re
    import unicodedata

    ascii_name = unicodedata.normalize("NFKD", path.name).encode("ascii", "ignore").decode()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", ascii_name)
    name = re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", name)
    return name or fallback


def scaffold_instance(path: Path, commits: list[str] | None = None) -> dict[str, Any]:
    """Create an instance at path: git repo, revetly.toml, folders, .gitignore, .mcp.json."""
    import pygit2

    root = path.expanduser().resolve()
    if (root / "revetly.toml").exists():
        raise Refusal(
            "refused", f"{root} already holds an instance (revetly.toml exists)",
            "choose another folder, or edit its revetly.toml",
        )
    if root.exists() and not root.is_dir():
        raise Refusal("refused", f"{root} exists and is not a folder", "choose another path")
    declared: list[tuple[str, str]] = []
    seen: set[str] = set()
    for given in commits or []:
        repo_path = Path(given).expanduser().resolve()
        if pygit2.discover_repository(str(repo_path)) is None:
            raise Refusal(
                "refused", f"--commits {given}: not a git repository",
                "pass the folder of a git repository holding your code",
            )
        name = _safe_name(repo_path, fallback="code")
        while name in seen:
            name += "-2"
        seen.add(name)
        try:
            rel = os.path.relpath(repo_path, root)
        except ValueError:
            rel = str(repo_path)
        declared.append((name, rel))
    root.mkdir(parents=True, exist_ok=True)
    for folder in FOLDERS:
        (root / folder).mkdir(exist_ok=True)
        keep = root / folder / ".gitkeep"
        if not any((root / folder).iterdir()):
            keep.write_text("")
    (root / "revetly.toml").write_text(default_config_text(_safe_name(root), declared))
    gitignore = root / ".gitignore"
    existing = gitignore.read_text() if gitignore.exists() else ""
    if ".revetly/" not in existing.splitlines():
        gitignore.write_text(existing + ("" if existing.endswith("\n") or not existing else "\n")
                             + ".revetly/\n")
    (root / ".mcp.json").write_text(json.dumps(mcp_json(), indent=2) + "\n")
    host_files = write_host_commands(root)
    created_repo = not (root / ".git").exists()
    if created_repo:
        pygit2.init_repository(str(root), initial_head="main")
    return {
        "instance": str(root),
        "created_repository": created_repo,
        "config": "revetly.toml",
        "folders": list(FOLDERS),
        "commits": [{"name": n, "path": p} for n, p in declared],
        "host_files": [".mcp.json", *host_files],
        "next": "add markdown files under backlog/, notes/ or records/, then run `revetly sync`",
    }
