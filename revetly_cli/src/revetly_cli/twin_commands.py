"""The `revetly` commands generated from the tool registry: one command per CLI twin.

Each twin's values, their types, defaults and help come from its tool's declared arguments and
the twin's own data (`revetly_core.surface.twins`); the command body is the same for every twin:
answer it in core, print the payload (--json) or the twin's renderer, exit 2 on a refusal. Only
plain data is read here, so building the commands loads neither the engine nor pydantic; the
engine loads inside the command.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from inspect import Parameter, Signature
from typing import Annotated, Any

import typer
from revetly_core.surface.twins import CLI_GROUPS, CliTwin, CommandParam, command_params, every_twin

from revetly_cli.common import EXIT_REFUSED, InstanceOpt, JsonOpt, run_core, show_payload


def typer_parameter(param: CommandParam) -> Parameter:
    """One command value as typer reads it: an argument or an option, with its help."""
    help_text = param.help or None
    info: Any = (typer.Argument(help=help_text) if param.positional
                 else typer.Option(*param.flags, help=help_text))
    default = Parameter.empty if param.required else param.default
    return Parameter(param.name, Parameter.KEYWORD_ONLY,
                     annotation=Annotated[param.annotation, info], default=default)


def command_signature(params: list[CommandParam], order: tuple[str, ...] = ()) -> Signature:
    """The command's signature: its positional values, --instance, its options, then --json;
    or its values in the twin's ``order``, then --json."""
    typed = [typer_parameter(p) for p in params]
    positional = [t for t, p in zip(typed, params, strict=True) if p.positional]
    options = [t for t, p in zip(typed, params, strict=True) if not p.positional]
    instance = Parameter("instance", Parameter.KEYWORD_ONLY, annotation=InstanceOpt, default=None)
    as_json = Parameter("as_json", Parameter.KEYWORD_ONLY, annotation=JsonOpt, default=False)
    listed = [*positional, instance, *options]
    if order:
        place = {name: n for n, name in enumerate(order)}
        listed.sort(key=lambda parameter: place[parameter.name])
    return Signature([*listed, as_json])


class TwinCommand:
    """The callable typer registers for one twin: its values in, the answer printed. Its
    signature (what typer reads the command's values from) is built the first time typer asks,
    so a command line that names one command builds only that command's values
    (decisions/0038)."""

    def __init__(self, tool: str, twin: CliTwin) -> None:
        self.tool = tool
        self.twin = twin
        self.__name__ = self.__qualname__ = twin.command.replace(" ", "_").replace("-", "_")
        self.__doc__ = None  # the help is the twin's, given to typer on registration

    @cached_property
    def __signature__(self) -> Signature:
        """The twin's values as keyword parameters, read by inspect.signature."""
        return command_signature(command_params(self.tool, self.twin), self.twin.order)

    @cached_property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]  # read by get_type_hints
        """The parameters' annotations, as a function with that signature would hold them."""
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}

    def __call__(self, **values: Any) -> None:
        twin = self.twin
        as_json: bool = values.pop("as_json")
        instance: str | None = values.pop("instance")
        from revetly_core.surface.command_answer import answer_command, refused_by_status

        payload = run_core(lambda: answer_command(instance, self.tool, twin, values), as_json)
        show_payload(payload, as_json, twin.renderer,
                     **{name: values[name] for name in twin.renderer_options})
        if refused_by_status(twin, payload):
            raise typer.Exit(EXIT_REFUSED)


def twin_command(tool: str, twin: CliTwin) -> Callable[..., None]:
    """The callable typer registers for one twin (its signature built on first use)."""
    return TwinCommand(tool, twin)


def _group(app: typer.Typer, name: str) -> typer.Typer:
    """The command group a twin's path names, added to the app the first time it is named."""
    for info in app.registered_groups:
        if info.name == name and info.typer_instance is not None:
            return info.typer_instance
    group = typer.Typer(help=CLI_GROUPS[name], no_args_is_help=True)
    app.add_typer(group, name=name)
    return group


def registered_commands(app: typer.Typer) -> set[str]:
    """The command paths already on the app ("search", "review list")."""
    paths = {info.name or "" for info in app.registered_commands}
    for group in app.registered_groups:
        if group.typer_instance is not None:
            paths |= {f"{group.name} {info.name}" for info in group.typer_instance.registered_commands}
    return paths


def register_twins(app: typer.Typer, *commands: str) -> None:
    """Register the named twins' commands on the app, in the registry's order (every twin not
    yet registered when none is named), so `revetly --help` lists them where they belong."""
    done = registered_commands(app)
    for tool, twin in every_twin():
        if twin.command in done or (commands and twin.command not in commands):
            continue
        *group, name = twin.command.split()
        target = _group(app, group[0]) if group else app
        target.command(name, help=twin.help)(twin_command(tool, twin))
