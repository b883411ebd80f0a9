"""The agent-host files `revetly init` writes: server entries that start unchanged, anywhere.

A host spawns the server without a shell and without the user's virtual environment on its
PATH, so the entry names the interpreter this engine runs under by its absolute path and starts
the server as a module of it (ADR 0016). Those two paths belong to one machine, so the two JSON
files are kept out of the instance's git history; the command files are portable and committed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from revetly_core.answers.maintenance import HostFilesWritten

CLAUDE_CODE_FILE = ".mcp.json"
VSCODE_FILE = ".vscode/mcp.json"
SERVER_NAME = "revetly"
MACHINE_LOCAL_FILES = (CLAUDE_CODE_FILE, VSCODE_FILE)
"""Host files that carry this machine's paths: written, git-ignored, never committed."""


def server_command(instance: Path, project: str | None = None,
                   interpreter: str | None = None) -> tuple[str, list[str]]:
    """(command, args) that start this engine's MCP server for ``instance`` with no PATH lookup."""
    args = ["-m", "revetly_mcp", "--instance", str(instance)]
    if project:
        args += ["--project", project]
    return interpreter or sys.executable, args


def claude_code_entry(command: str, args: list[str]) -> dict[str, Any]:
    """The .mcp.json Claude Code reads at a project root: ``mcpServers`` -> a stdio entry."""
    return {"mcpServers": {SERVER_NAME: {"type": "stdio", "command": command, "args": args}}}


def vscode_entry(command: str, args: list[str]) -> dict[str, Any]:
    """The .vscode/mcp.json VS Code reads in a workspace: ``servers`` -> a stdio entry."""
    return {"servers": {SERVER_NAME: {"type": "stdio", "command": command, "args": args}}}


def host_json_files(instance: Path, project: str | None = None,
                    interpreter: str | None = None) -> dict[str, str]:
    """relative path -> text of the two server-entry files for one instance (and project)."""
    command, args = server_command(instance, project, interpreter)
    return {
        CLAUDE_CODE_FILE: json.dumps(claude_code_entry(command, args), indent=2) + "\n",
        VSCODE_FILE: json.dumps(vscode_entry(command, args), indent=2) + "\n",
    }


def all_host_files(instance: Path, project: str | None = None,
                   interpreter: str | None = None) -> dict[str, str]:
    """Every host file: the two server entries, then the five prompts as host command files."""
    from revetly_core.surface.prompts import host_command_files

    return {**host_json_files(instance, project, interpreter), **host_command_files()}


def write_host_files(target: Path, files: dict[str, str]) -> HostFilesWritten:
    """Write ``files`` under ``target``; an existing file is kept as it is and reported kept."""
    written: list[str] = []
    kept: list[str] = []
    for rel, text in files.items():
        path = target / rel
        if path.exists():
            kept.append(rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(rel)
    return {"written": written, "kept": kept}


def host_snippet(instance: Path, project: str | None = None,
                 interpreter: str | None = None) -> dict[str, Any]:
    """What to paste into a code repository by hand: both server entries and a CLI one-liner."""
    command, args = server_command(instance, project, interpreter)
    return {
        CLAUDE_CODE_FILE: claude_code_entry(command, args),
        VSCODE_FILE: vscode_entry(command, args),
        "claude_mcp_add": " ".join(
            ["claude", "mcp", "add", SERVER_NAME, "--", _shell_word(command),
             *(_shell_word(a) for a in args)]),
    }


def _shell_word(word: str) -> str:
    import shlex

    return shlex.quote(word)
