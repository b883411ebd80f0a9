"""Each tool's CLI twins, as the registry declares them, checked against the `revetly` commands:
the command exists, its renderer exists, and together the twins take every argument the tool
declares (less the ones a twin fixes itself). The shell's modules import common.py, never
app.py, so they form a tree rather than an import circle."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any

import pytest
import typer
from revetly_cli.app import app
from revetly_core.surface import TOOLS
from revetly_core.surface.catalogue import TOOLS_BY_NAME

TWINNED = [spec.name for spec in TOOLS if spec.cli]
CLI_SOURCE = Path(__file__).resolve().parents[2] / "revetly_cli" / "src" / "revetly_cli"


def cli_command(path: str) -> Any:
    """The command a twin names ("review list"), as typer builds it, or None."""
    command: Any = typer.main.get_command(app)
    for word in path.split():
        command = (getattr(command, "commands", None) or {}).get(word)
    return command


@pytest.mark.parametrize("name", TWINNED)
def test_every_twin_names_a_revetly_command(name: str) -> None:
    missing = [t.command for t in TOOLS_BY_NAME[name].cli if cli_command(t.command) is None]
    assert missing == []


@pytest.mark.parametrize("name", TWINNED)
def test_every_twin_names_a_renderer_the_cli_has(name: str) -> None:
    for twin in TOOLS_BY_NAME[name].cli:
        module, function = twin.renderer.split(".")
        assert callable(getattr(importlib.import_module(f"revetly_cli.{module}"), function, None)), \
            twin.renderer


@pytest.mark.parametrize("name", TWINNED)
def test_the_twins_take_every_argument_the_tool_declares(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    taken: set[str] = set()
    for twin in spec.cli:
        command = cli_command(twin.command)
        assert command is not None
        params = {p.name for p in command.params if p.name}
        taken |= params | set(twin.fixes)
        taken |= {argument for argument, param in twin.renames if param in params}
    assert [a for a in spec.arguments if a not in taken] == []


def test_no_command_module_imports_app_py() -> None:
    importers = []
    for path in CLI_SOURCE.glob("*.py"):
        if path.name in ("app.py", "__init__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "revetly_cli.app":
                importers.append(path.name)
    assert importers == []
