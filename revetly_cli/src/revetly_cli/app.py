"""The `revetly` command. Each command: parse, call one core function, print, exit.

The tools' twins (search, inspect, binding, review …) are generated from the tool registry
(`twin_commands.py`); the commands written here are the ones no tool answers."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from revetly_cli.common import (
    EXIT_FOUND_PROBLEMS,
    EXIT_REFUSED,
    InstanceOpt,
    JsonOpt,
    app,
    console,
    run_core,
    show_payload,
)
from revetly_cli.one_command import app_for
from revetly_cli.twin_commands import register_twins

__all__ = ["EXIT_FOUND_PROBLEMS", "EXIT_REFUSED", "app", "command", "main"]


def _version(value: bool) -> None:
    """--version: the three distributions' versions, then exit."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for dist in ("revetly-cli", "revetly-core", "revetly-mcp"):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} (not installed)")
    print(", ".join(parts))
    raise typer.Exit(0)


@app.callback()
def _root(
    show_version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Print the installed versions and exit.")
                            ] = False,
) -> None:
    """Revetly: ground AI agents in what was asked, what binds it, what shipped and what changed."""


@app.command()
def init(
    path: Annotated[str, typer.Argument(help="Folder for the new instance.")],
    commits: Annotated[
        list[str] | None,
        typer.Option("--commits", help="A code repository to read commits from (repeatable)."),
    ] = None,
    from_source: Annotated[
        tuple[str, str] | None,
        typer.Option("--from", metavar="KIND REPO",
                     help="Read REPO in place as a backlog-md or adr source (never written)."),
    ] = None,
    write_hosts: Annotated[
        bool, typer.Option("--write-hosts", help="Also write the agent-host files into the "
                           "--from repository (else they are printed to paste).")] = False,
    auth: Annotated[
        str | None, typer.Option("--auth", metavar="ISSUER_URL",
                                 help="Also declare a served endpoint that checks bearer tokens "
                                 "from this authorization server ([auth] and [served]).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Create an instance: git repo (first commit), revetly.toml, folders and agent-host files."""
    from revetly_core import Engine

    payload = run_core(lambda: Engine.init(path, commits or [], from_source,
                                           write_hosts=write_hosts, auth_issuer=auth), as_json)
    show_payload(payload, as_json, "render.render_init")


@app.command()
def sync(
    instance: InstanceOpt = None,
    full: Annotated[bool, typer.Option("--full", help="Rebuild CONTEXT from every source.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Read the instance's sources into CONTEXT (only what changed, unless --full)."""
    from revetly_core import Engine

    engine = run_core(lambda: {"engine": Engine.open(instance)}, as_json)["engine"]
    if as_json or not sys.stderr.isatty():
        payload = run_core(lambda: engine.sync(full=full), as_json)
    else:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      console=console(stderr=True), transient=True) as bar:
            tasks: dict[str, Any] = {}

            def progress(phase: str, done: int, total: int) -> None:
                if phase not in tasks:
                    tasks[phase] = bar.add_task(phase, total=total or None)
                bar.update(tasks[phase], completed=done, total=total or None)

            payload = run_core(lambda: engine.sync(full=full, progress=progress), as_json)
    show_payload(payload, as_json, "render.render_sync")


register_twins(app, "status")


@app.command()
def check(
    instance: InstanceOpt = None,
    repair: Annotated[bool, typer.Option("--repair", help="Fold doubled criteria sections "
                                         "(keeps the last list), then check.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Name every file that breaks the schema and every link to an id CONTEXT lacks (exit 1)."""
    from revetly_core import Engine

    payload = run_core(lambda: Engine.open(instance).check(repair=repair), as_json)
    show_payload(payload, as_json, "render.render_check")
    if not payload["ok"]:
        raise typer.Exit(EXIT_FOUND_PROBLEMS)


register_twins(app, "search", "inspect", "branch", "backlog")


@app.command()
def serve(
    instance: InstanceOpt = None,
    project: Annotated[
        str | None, typer.Option("--project", help="Bind the connection to one project.")
    ] = None,
    max_frame: Annotated[
        int, typer.Option("--max-frame", help="Longest JSON-RPC line accepted, in bytes.")
    ] = 1024 * 1024,
    http: Annotated[bool, typer.Option("--http", help="Serve Streamable HTTP, not stdio.")] = False,
    host: Annotated[str | None, typer.Option("--host", help="HTTP bind address.")] = None,
    port: Annotated[int | None, typer.Option("--port", help="HTTP port.")] = None,
    path: Annotated[str | None, typer.Option("--path", help="HTTP endpoint path.")] = None,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="HTTP: serve reads, refuse every write.")
    ] = False,
) -> None:
    """Run the MCP server over stdio for an agent host (the same as `revetly-mcp`), or with
    --http as a Streamable HTTP endpoint (docs/serving.md)."""
    try:
        from revetly_mcp.server import run
    except ImportError:
        sys.stderr.write("revetly serve needs the revetly-mcp package: pip install revetly-mcp\n")
        raise typer.Exit(EXIT_REFUSED) from None
    if http:
        from revetly_mcp.serve_http import run_http

        code = run_http(instance, project, host=host, port=port, path=path, read_only=read_only)
    else:
        code = run(instance, project, max_frame)
    if code:
        raise typer.Exit(code)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def supervise(ctx: typer.Context) -> None:
    """Run the served endpoint (`serve --http` options) and restart it when it crashes."""
    try:
        from revetly_mcp.supervise import supervise as run_supervised
    except ImportError:
        sys.stderr.write("revetly supervise needs the revetly-mcp package\n")
        raise typer.Exit(EXIT_REFUSED) from None
    code = run_supervised(list(ctx.args))
    if code:
        raise typer.Exit(code)


# Command groups defined in their own modules register themselves on `app` when imported.
from revetly_cli import (  # noqa: E402,F401
    operate_commands,  # doctor, watch, backfill, migrate, audit-links, manual
    rag_commands,  # revetly rag …: the governed layer
)

register_twins(app)  # binding, drift, deltas, author, review …, status-set, decide, note


def flags_as_flags(command: Any) -> Any:
    """Give every on/off option an empty metavar, so --help shows `--full`, not `--full <bool>`."""
    for param in getattr(command, "params", []):
        if getattr(param, "is_flag", False):
            param.metavar = ""
    make_help = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = make_help(ctx)
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        flags_as_flags(sub)
    return command


def command(args: Sequence[str] = ()) -> Any:
    """The click command `revetly` runs: the typer app with its flags shown as flags, built for
    the command the arguments name (only that one is built: `one_command.app_for`), its text and
    number values coerced without pydantic (`plain_values`)."""
    from revetly_cli.plain_values import plain_coercion

    return plain_coercion(flags_as_flags(typer.main.get_command(app_for(app, args))))


def main() -> None:
    """Entry point of the console script; an unexpected error is one line, never a traceback."""
    try:
        command(sys.argv[1:])(prog_name="revetly")
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    except Exception as exc:  # the last line of defence: a bug is reported, not dumped
        from revetly_cli.render_text import visible

        sys.stderr.write(visible(f"revetly: internal error: {type(exc).__name__}: {exc}") + "\n")
        sys.stderr.write("please report it with the command you ran; REVETLY_DEBUG=1 shows the trace\n")
        import os

        if os.environ.get("REVETLY_DEBUG"):
            raise
        sys.exit(3)
