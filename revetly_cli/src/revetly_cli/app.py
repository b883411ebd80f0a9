"""The `revetly` command. Each command: parse, call one core function, print, exit."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from revetly_cli import output
from revetly_cli.common import (
    EXIT_FOUND_PROBLEMS,
    EXIT_REFUSED,
    InstanceOpt,
    JsonOpt,
    app,
    console,
    renderer_named,
    run_core,
    twin_renderer,
)
from revetly_core import Engine

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


def _show(payload: dict[str, Any], as_json: bool, renderer: str, **options: Any) -> None:
    """--json prints the payload itself; otherwise the rich rendering named "module.function"."""
    if as_json:
        output.print_json(payload)
        return
    from revetly_cli.render_text import terminal_payload

    if payload.get("recovered"):  # an interrupted write the call settled first
        from revetly_cli.render_writes import render_recovered

        render_recovered(console(), terminal_payload(payload))
    renderer_named(renderer)(console(), terminal_payload(payload), **options)

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
    payload = run_core(lambda: Engine.init(path, commits or [], from_source,
                                           write_hosts=write_hosts, auth_issuer=auth), as_json)
    _show(payload, as_json, "render.render_init")


@app.command()
def sync(
    instance: InstanceOpt = None,
    full: Annotated[bool, typer.Option("--full", help="Rebuild CONTEXT from every source.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Read the instance's sources into CONTEXT (only what changed, unless --full)."""
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
    _show(payload, as_json, "render.render_sync")


@app.command()
def status(
    instance: InstanceOpt = None,
    capture: Annotated[str | None, typer.Option("--capture", help="A write's capture handle: "
                                                "has it reached CONTEXT?")] = None,
    as_json: JsonOpt = False,
) -> None:
    """What context_health reports: last pass per source, revision, freshness, counts."""
    payload = run_core(lambda: Engine.open(instance).context_health(capture=capture), as_json)
    _show(payload, as_json, twin_renderer("status"))


@app.command()
def check(
    instance: InstanceOpt = None,
    repair: Annotated[bool, typer.Option("--repair", help="Fold doubled criteria sections "
                                         "(keeps the last list), then check.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Name every file that breaks the schema and every link to an id CONTEXT lacks (exit 1)."""
    payload = run_core(lambda: Engine.open(instance).check(repair=repair), as_json)
    _show(payload, as_json, "render.render_check")
    if not payload["ok"]:
        raise typer.Exit(EXIT_FOUND_PROBLEMS)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What you are looking for, in a few words.")],
    instance: InstanceOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Rows to serve (1-50).")] = 10,
    project: Annotated[str | None, typer.Option("--project", help="Read as this project.")] = None,
    deleted: Annotated[
        str | None, typer.Option("--deleted", help="'include' or 'only' to read deleted work.")
    ] = None,
    inferred: Annotated[
        str | None, typer.Option("--inferred", help="'all' widens the inferred half.")
    ] = None,
    wide: Annotated[bool, typer.Option("--wide", help="Print each summary whole, not cut to "
                                       "one line.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Artifacts, passages and facts for a query, one line per row (the search_context read)."""
    payload = run_core(
        lambda: Engine.open(instance).search_context(
            query, limit=limit, project=project, deleted=deleted, inferred=inferred
        ),
        as_json,
    )
    _show(payload, as_json, twin_renderer("search"), wide=wide)


ProjectOpt = Annotated[str | None, typer.Option("--project", help="Read as this project.")]
DeletedOpt = Annotated[
    str | None, typer.Option("--deleted", help="'include' or 'only' to read deleted work.")
]


@app.command()
def inspect(
    artifact_id: Annotated[str, typer.Argument(help="The artifact's id (or a commit sha).")],
    instance: InstanceOpt = None,
    project: ProjectOpt = None,
    history_after: Annotated[
        str | None,
        typer.Option("--history-after", help="Serve the full record, history after this point "
                     "('' for all)."),
    ] = None,
    deleted: DeletedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of get_artifact: one artifact's own words, declared links and marks."""
    payload = run_core(
        lambda: Engine.open(instance).get_artifact(
            artifact_id, project=project, history_after=history_after, deleted=deleted
        ),
        as_json,
    )
    _show(payload, as_json, twin_renderer("inspect"))


def _depth(value: str) -> int | str:
    """--depth as the core takes it: a whole number, or a word passed through unchanged."""
    return int(value) if value.isdigit() else value


@app.command()
def branch(
    artifact_id: Annotated[str, typer.Argument(help="The root of the branch.")],
    instance: InstanceOpt = None,
    depth: Annotated[
        str, typer.Option("--depth", help="Levels to walk, or 'declared' for [backlog.parents].")
    ] = "declared",
    project: ProjectOpt = None,
    deleted: DeletedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of get_artifact with depth: the declared hierarchy beneath an artifact."""
    payload = run_core(
        lambda: Engine.open(instance).get_artifact(
            artifact_id, project=project, depth=_depth(depth), deleted=deleted
        ),
        as_json,
    )
    _show(payload, as_json, twin_renderer("branch"))


@app.command()
def backlog(
    instance: InstanceOpt = None,
    status: Annotated[str | None, typer.Option("--status", help="A status, or a comma list.")] = None,
    pbi_type: Annotated[
        str | None, typer.Option("--type", help="epic, feature, story, task or bug (or a list).")
    ] = None,
    provenance: Annotated[str | None, typer.Option("--provenance")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Rows per page (1-500).")] = 50,
    cursor: Annotated[str | None, typer.Option("--cursor", help="next_cursor of the page before.")] = None,
    project: ProjectOpt = None,
    deleted: DeletedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of list_backlog: the project's work items as compact rows."""
    payload = run_core(
        lambda: Engine.open(instance).list_backlog(
            status=status, provenance=provenance, pbi_type=pbi_type, limit=limit, cursor=cursor,
            project=project, deleted=deleted,
        ),
        as_json,
    )
    _show(payload, as_json, twin_renderer("backlog"))


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
    scope_commands,  # binding, drift, deltas, author
    write_commands,  # review, status-set, decide, note
)


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


def command() -> Any:
    """The click command `revetly` runs: the typer app with its flags shown as flags."""
    return flags_as_flags(typer.main.get_command(app))


def main() -> None:
    """Entry point of the console script; an unexpected error is one line, never a traceback."""
    try:
        command()(prog_name="revetly")
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
