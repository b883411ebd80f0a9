"""The app cut to the one command a command line names: that command is built exactly as the
whole app builds it, and anything that names no command is answered by the whole app."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import typer
from revetly_cli.app import app
from revetly_cli.one_command import app_for

WHOLE: Any = typer.main.get_command(app)
NAMES = sorted(WHOLE.commands)


def described(command: Any) -> Any:
    """What a user sees of a command: its help, and each parameter's names, help and default."""
    params = [(p.name, tuple(p.opts), getattr(p, "help", None), p.default, p.required)
              for p in command.params]
    subs = {name: described(sub) for name, sub in getattr(command, "commands", {}).items()}
    return command.help, params, subs


@pytest.mark.parametrize("name", NAMES)
def test_a_named_command_is_built_alone_and_as_the_whole_app_builds_it(name: str) -> None:
    one: Any = typer.main.get_command(app_for(app, [name, "--json"]))
    assert list(one.commands) == [name]
    assert described(one.commands[name]) == described(WHOLE.commands[name])
    assert described(one)[:2] == described(WHOLE)[:2]


@pytest.mark.parametrize("args", [[], ["--help"], ["--version"], ["serch", "x"]])
def test_a_line_naming_no_command_gets_the_whole_app(args: list[str]) -> None:
    assert app_for(app, args) is app


BUILT_SIGNATURES = """
import json, revetly_cli.app as a
from revetly_cli.twin_commands import TwinCommand
a.command(["search", "invoice export", "--json"])
callbacks = [c.callback for c in a.app.registered_commands]
callbacks += [c.callback for g in a.app.registered_groups if g.typer_instance is not None
              for c in g.typer_instance.registered_commands]
twins = [c for c in callbacks if isinstance(c, TwinCommand)]
print(json.dumps({"twins": len(twins),
                  "signed": sorted(c.twin.command for c in twins if "__signature__" in vars(c))}))
"""


def test_a_line_naming_one_twin_builds_only_that_twins_values() -> None:
    done = subprocess.run([sys.executable, "-c", BUILT_SIGNATURES], capture_output=True,
                          text=True, timeout=120, check=True)
    found = json.loads(done.stdout)
    assert found["twins"] > 10  # every twin is registered, so --help and the names still work
    assert found["signed"] == ["search"]
