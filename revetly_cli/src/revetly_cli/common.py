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


def show_payload(payload: dict[str, Any], as_json: bool, renderer: str, **options: Any) -> None:
    """--json prints the payload itself; otherwise the rich rendering named "module.function",
    after a line for each interrupted write the call settled first."""
    if as_json:
        output.print_json(payload)
        return
    from revetly_cli.render_text import terminal_payload

    shown = terminal_payload(payload)
    if payload.get("recovered"):
        from revetly_cli.render_writes import render_recovered

        render_recovered(console(), shown)
    renderer_named(renderer)(console(), shown, **options)
