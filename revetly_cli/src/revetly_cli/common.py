"""What every `revetly` command shares: the root typer app, the options every command takes,
the console it prints to, and the one way a core call's refusal becomes an exit status.

Command modules register on `app` from here, so none of them imports app.py (which imports
them): the shell's modules form a tree, not a circle.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

from revetly_cli import output
from revetly_core import Refusal

if TYPE_CHECKING:
    from rich.console import Console

EXIT_REFUSED = 2
EXIT_FOUND_PROBLEMS = 1

app = typer.Typer(
    name="revetly",
    help="Revetly: ground AI agents in what was asked, what binds it, what shipped and what changed.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

InstanceOpt = Annotated[
    str | None,
    typer.Option("--instance", "-i", help="Instance folder (else REVETLY_INSTANCE, else upward from here)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the core payload as JSON.")]


def console(stderr: bool = False) -> Console:
    """A rich console, made only when a human rendering is printed (rich loads on demand)."""
    from rich.console import Console

    return Console(stderr=stderr)


def twin_renderer(command: str) -> str:
    """The renderer the tool registry declares for the CLI twin named ``command``."""
    from revetly_core.surface import TOOLS

    for spec in TOOLS:
        for twin in spec.cli:
            if twin.command == command:
                return twin.renderer
    raise KeyError(f"no tool declares the CLI twin {command!r}")


def renderer_named(name: str) -> Callable[..., None]:
    """A renderer by its "module.function" name in revetly_cli (its module loads on demand)."""
    module, function = name.split(".")
    found: Callable[..., None] = getattr(importlib.import_module(f"revetly_cli.{module}"), function)
    return found


def run_core(call: Callable[[], Mapping[str, Any]], as_json: bool) -> dict[str, Any]:
    """Call core; a refusal becomes its payload (--json) or one line on stderr, exit 2."""
    try:
        return dict(call())
    except Refusal as refusal:
        if as_json:
            output.print_json(refusal.payload())
        else:
            sys.stderr.write(output.refusal_line(refusal.payload()) + "\n")
        raise typer.Exit(EXIT_REFUSED) from None
