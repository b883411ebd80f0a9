"""The scope reads' shell twins: revetly binding, drift, deltas and author.

Each parses, calls one Engine method, and prints the payload (--json) or its rich rendering.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from revetly_core.answers import ScopeAnswer

from revetly_cli import output
from revetly_cli.common import (
    InstanceOpt,
    JsonOpt,
    app,
    console,
    renderer_named,
    run_core,
    twin_renderer,
)
from revetly_core import Engine

ProjectOpt = Annotated[str | None, typer.Option("--project", help="Read as this project.")]
LimitOpt = Annotated[int | None, typer.Option("--limit", "-n", help="Rows to serve.")]
SinceOpt = Annotated[str | None, typer.Option("--since", help="Window start (ISO date or time).")]
UntilOpt = Annotated[str | None, typer.Option("--until", help="Window end, exclusive.")]
RootOpt = Annotated[
    str | None, typer.Option("--artifact", "-a", help="Read the branch beneath this artifact.")
]


def _show_scope(payload: dict[str, Any], as_json: bool, renderer: str) -> None:
    if as_json:
        output.print_json(payload)
        return
    from revetly_cli.render_text import terminal_payload

    renderer_named(renderer)(console(), terminal_payload(payload))


@app.command()
def binding(
    artifact_id: Annotated[str | None, typer.Argument(help="The artifact whose scope to read.")] = None,
    topic: Annotated[str | None, typer.Option("--topic", "-t", help="A topic scope.")] = None,
    path: Annotated[
        str | None, typer.Option("--path", "-p", help="A file in a declared code repository "
                                 "(from here, or as the repository names it).")
    ] = None,
    depth: Annotated[
        int | None, typer.Option("--depth", help="Levels of the branch beneath to walk.")
    ] = None,
    instance: InstanceOpt = None,
    project: ProjectOpt = None,
    limit: LimitOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of get_scope(question='binding'): what already binds an artifact, a topic or
    a file (which stories and decisions are behind it)."""
    def read() -> ScopeAnswer:
        engine = Engine.open(instance)
        where = None if path is None else engine.repository_path(path)
        return engine.get_scope("binding", artifact_id=artifact_id, topic=topic, path=where,
                                depth=depth, project=project, limit=limit)

    payload = run_core(read, as_json)
    _show_scope(payload, as_json, twin_renderer("binding"))


@app.command()
def drift(
    instance: InstanceOpt = None,
    artifact_id: RootOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    project: ProjectOpt = None,
    limit: LimitOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of get_scope(question='drift'): what was asked for against what shipped."""
    payload = run_core(lambda: Engine.open(instance).get_scope(
        "drift", artifact_id=artifact_id, since=since, until=until, project=project,
        limit=limit), as_json)
    _show_scope(payload, as_json, twin_renderer("drift"))


@app.command()
def deltas(
    instance: InstanceOpt = None,
    artifact_id: RootOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    clock: Annotated[
        str | None, typer.Option("--clock", help="'source' (default) or 'ingest'.")
    ] = None,
    project: ProjectOpt = None,
    limit: LimitOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of get_scope(question='deltas'): what changed over a window, on one clock."""
    payload = run_core(lambda: Engine.open(instance).get_scope(
        "deltas", artifact_id=artifact_id, since=since, until=until, clock=clock,
        project=project, limit=limit), as_json)
    _show_scope(payload, as_json, twin_renderer("deltas"))


@app.command()
def author(
    topic: Annotated[str, typer.Argument(help="What the new story is about, in a few words.")],
    instance: InstanceOpt = None,
    project: ProjectOpt = None,
    limit: LimitOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of get_authoring_context: nearest backlog, related material and what binds it."""
    payload = run_core(lambda: Engine.open(instance).get_authoring_context(
        topic, limit=limit, project=project), as_json)
    _show_scope(payload, as_json, twin_renderer("author"))
