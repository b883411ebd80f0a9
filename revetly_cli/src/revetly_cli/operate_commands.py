"""The operator's commands: doctor, watch, backfill, migrate, audit-links and manual.

Each parses, calls one Engine method, and prints the payload (--json) or its rich rendering.
"""

from __future__ import annotations

import datetime as dt
import json
import signal
import sys
import threading
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from revetly_cli import output
from revetly_cli.common import (
    EXIT_FOUND_PROBLEMS,
    EXIT_REFUSED,
    InstanceOpt,
    JsonOpt,
    app,
    console,
    run_core,
)
from revetly_core import Refusal

if TYPE_CHECKING:
    from revetly_core.answers import StoppedEvent, WatchEvent


def _show(payload: dict[str, Any], as_json: bool, renderer: str) -> None:
    if as_json:
        output.print_json(payload)
        return
    from revetly_cli import render_operate

    getattr(render_operate, renderer)(console(), payload)


def _date(value: str | None, flag: str) -> dt.date | None:
    """An ISO date argument; anything else is refused naming the flag."""
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise Refusal("invalid-argument", f"{flag} {value!r} is not a date",
                      f"pass {flag} YYYY-MM-DD") from None


@app.command()
def doctor(
    instance: InstanceOpt = None,
    token: Annotated[str | None, typer.Option(
        "--token", help="A bearer token: what would the served endpoint grant it?")] = None,
    project: Annotated[str | None, typer.Option(
        "--project", help="With --token: as a connection bound to this project.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Does each source read, is the index current, and how each proven client connects
    (exit 1 when there is a warning). With --token: who the token is, whether it may approve,
    which projects its grant reaches (exit 1 when it is refused)."""
    from revetly_core import Engine

    if token is not None:
        _doctor_token(instance, token, project, as_json)
        return
    payload = run_core(lambda: Engine.open(instance).doctor(), as_json)
    _show(payload, as_json, "render_doctor")
    if not payload["ok"]:
        raise typer.Exit(EXIT_FOUND_PROBLEMS)


def _doctor_token(instance: str | None, token: str, project: str | None, as_json: bool) -> None:
    """`doctor --token`: the served endpoint's verifier asked about one token."""
    try:
        from revetly_mcp.token_check import check_token
    except ImportError:
        sys.stderr.write("revetly doctor --token needs the revetly-mcp package\n")
        raise typer.Exit(EXIT_REFUSED) from None
    payload = run_core(lambda: check_token(instance, token, project=project), as_json)
    output.print_json(payload)
    if not payload["token"]["verified"]:
        raise typer.Exit(EXIT_FOUND_PROBLEMS)


@app.command()
def watch(
    instance: InstanceOpt = None,
    debounce: Annotated[int, typer.Option("--debounce", help="Milliseconds changes gather "
                                          "before one pass runs.")] = 1600,
    max_passes: Annotated[int | None, typer.Option("--max-passes", help="Stop after this many "
                                                   "passes (default: run until stopped).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON event per line.")] = False,
) -> None:
    """Run the incremental pass whenever a source changes; reads say freshness.watch meanwhile."""
    from revetly_core import Engine

    engine = run_core(lambda: {"engine": Engine.open(instance)}, as_json)["engine"]
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def report(event: WatchEvent | StoppedEvent) -> None:
        if as_json:
            print(json.dumps(event, ensure_ascii=False), flush=True)
        else:
            from revetly_cli.render_operate import watch_event_line

            print(watch_event_line(event), flush=True)

    summary = run_core(lambda: engine.watch(debounce_ms=debounce, stop=stop, max_passes=max_passes,
                                        report=report), as_json)
    report(cast("StoppedEvent", {"event": "stopped", **summary}))  # run_core answers a dict


@app.command()
def backfill(
    instance: InstanceOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Price it only: windows, commits, "
                                          "estimated time.")] = False,
    source: Annotated[str | None, typer.Option("--source", help="One commits source "
                                               "(commits/NAME or NAME).")] = None,
    to: Annotated[str | None, typer.Option("--to", help="Read back to this date (default: the "
                                           "oldest commit).")] = None,
    window_days: Annotated[int, typer.Option("--window-days", help="Days per window.")] = 30,
    windows: Annotated[int | None, typer.Option("--windows", help="Read at most this many "
                                                "windows now; the rest stay partial.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Read a commits source's history below its `since` floor, one window per pass."""
    from revetly_core import Engine

    payload = run_core(lambda: Engine.open(instance).backfill(
        dry_run=dry_run, source=source, to=_date(to, "--to"), window_days=window_days,
        max_windows=windows), as_json)
    _show(payload, as_json, "render_backfill")


@app.command()
def migrate(
    instance: InstanceOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Price it only: the steps and the "
                                          "re-read they need.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Move the instance's CONTEXT store to this engine's schema (priced first, then re-read)."""
    from revetly_core import Engine

    payload = run_core(lambda: Engine.open(instance).migrate(dry_run=dry_run), as_json)
    _show(payload, as_json, "render_migrate")


@app.command("audit-links")
def audit_links(
    instance: InstanceOpt = None,
    project: Annotated[str | None, typer.Option("--project", help="Only links from this "
                                                "project's artifacts.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Count CONTEXT's live links by method: explicit-ref, title-mention, declared, inferred."""
    from revetly_core import Engine

    payload = run_core(lambda: Engine.open(instance).audit_links(project), as_json)
    _show(payload, as_json, "render_audit_links")


manual_app = typer.Typer(help="The operator manual, offline: `revetly manual` lists its topics.",
                         invoke_without_command=True, no_args_is_help=False)
app.add_typer(manual_app, name="manual")


@manual_app.callback()
def manual(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """List the manual's topics (`revetly manual show TOPIC` prints one)."""
    from revetly_core import Engine

    if ctx.invoked_subcommand is not None:
        return
    payload = run_core(lambda: Engine.manual(), as_json)
    _show(payload, as_json, "render_manual_topics")


@manual_app.command("show")
def manual_show(
    topic: Annotated[str, typer.Argument(help="A topic, e.g. commands or connecting.")],
    as_json: JsonOpt = False,
) -> None:
    """Print one page of the manual."""
    from revetly_core import Engine

    payload = run_core(lambda: Engine.manual(topic), as_json)
    if as_json:
        output.print_json(payload)
        return
    if sys.stdout.isatty():
        from rich.markdown import Markdown

        console().print(Markdown(payload["text"]))
    else:
        sys.stdout.write(payload["text"])

