"""The CLI twins are generated from the tool registry: every twin the registry declares is a
`revetly` command, with a renderer the CLI has, and together a tool's twins take every argument
it declares (less the ones a twin fixes itself). The generated command's values are the
declaration's own (types, defaults, help), and building them loads neither the engine nor
pydantic. The shell's modules import common.py, never app.py, so they form a tree rather than an
import circle."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from revetly_cli.app import app
from revetly_cli.twin_commands import registered_commands
from revetly_core.surface import TOOLS
from revetly_core.surface.argument_specs import arguments_of
from revetly_core.surface.catalogue import TOOLS_BY_NAME
from revetly_core.surface.twins import command_params, every_twin

TWINNED = [spec.name for spec in TOOLS if spec.cli]
CLI_SOURCE = Path(__file__).resolve().parents[2] / "revetly_cli" / "src" / "revetly_cli"


def cli_command(path: str) -> Any:
    """The command a twin names ("review list"), as typer builds it, or None."""
    command: Any = typer.main.get_command(app)
    for word in path.split():
        command = (getattr(command, "commands", None) or {}).get(word)
    return command


def test_the_generated_twins_cover_every_tool() -> None:
    twinned = {spec.name for spec in TOOLS if spec.cli}
    assert twinned == {spec.name for spec in TOOLS if not spec.no_cli}
    assert {twin.command for _, twin in every_twin()} <= registered_commands(app)


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


@pytest.mark.parametrize(("tool", "command"), [(t, w.command) for t, w in every_twin()])
def test_a_generated_option_has_the_declared_help_and_default(tool: str, command: str) -> None:
    twin = next(w for t, w in every_twin() if w.command == command)
    built = {p.name: p for p in cli_command(command).params}
    declared = {spec.name: spec for spec in arguments_of(tool)}
    for param in command_params(tool, twin):
        option = built[param.name]
        assert option.help == (param.help or None), (command, param.name)
        if param.argument is not None and param.default is declared[param.argument].default:
            assert option.required == declared[param.argument].required, (command, param.name)


def test_building_the_commands_loads_neither_the_engine_nor_pydantic_nor_rich() -> None:
    code = ("import sys, typer, revetly_cli.app as a; typer.main.get_command(a.app); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'rich', 'yaml'}), "
            "'revetly_core.engine' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] False"


def test_no_command_module_imports_app_py() -> None:
    importers = []
    for path in CLI_SOURCE.glob("*.py"):
        if path.name in ("app.py", "__init__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "revetly_cli.app":
                importers.append(path.name)
    assert importers == []
