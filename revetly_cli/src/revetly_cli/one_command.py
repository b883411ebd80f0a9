"""The app cut down to the one command a command line names.

typer builds every command's parameters from its signature before it parses anything, the
largest share of the CLI's own start. A command line that names a command needs only that one
(and the root's own callback); the root's help, a bare `revetly` and a name that is no command
(click suggests the near ones) are answered by the whole app.
"""

from __future__ import annotations

from collections.abc import Sequence

import typer
from typer.main import get_command_name
from typer.models import CommandInfo, TyperInfo


def command_name(info: CommandInfo) -> str | None:
    """The name a registered command answers to on the command line."""
    if isinstance(info.name, str):
        return info.name
    return get_command_name(info.callback.__name__) if info.callback is not None else None


def group_name(info: TyperInfo) -> str | None:
    """The name a registered command group answers to on the command line."""
    if isinstance(info.name, str):
        return info.name
    if info.typer_instance is not None and isinstance(info.typer_instance.info.name, str):
        return info.typer_instance.info.name
    return None


def app_for(app: typer.Typer, args: Sequence[str]) -> typer.Typer:
    """``app`` with only the command or group the first argument names; ``app`` itself when
    the arguments name none (options first, no arguments, or an unknown name)."""
    if not args or args[0].startswith("-"):
        return app
    name = args[0]
    commands = [c for c in app.registered_commands if command_name(c) == name]
    groups = [g for g in app.registered_groups if group_name(g) == name]
    if not commands and not groups:
        return app
    one = typer.Typer(add_completion=False)  # as the root app: no completion options
    one.info = app.info
    one.registered_callback = app.registered_callback
    one.registered_commands = commands
    one.registered_groups = groups
    one.rich_markup_mode = app.rich_markup_mode
    one.suggest_commands = app.suggest_commands
    one.pretty_exceptions_enable = app.pretty_exceptions_enable
    one.pretty_exceptions_short = app.pretty_exceptions_short
    return one
