"""Write commands: `revetly review ...`, `revetly status-set`, `revetly decide`, `revetly note`.

Each calls the same Engine method an MCP tool calls; a person at a terminal answers reviews
with decided_via 'cli' (the terminal is the person's, so the gate is enforced).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import typer

from revetly_cli import output
from revetly_cli.common import (
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

review_app = typer.Typer(help="Answer drafts waiting on a human: list, show, approve, reject, "
                         "withdraw.", no_args_is_help=True)
app.add_typer(review_app, name="review")

ProjectOpt = Annotated[str | None, typer.Option("--project", help="The project to write in.")]
ReasonOpt = Annotated[str | None, typer.Option("--reason", help="Why (kept on the record).")]


def _engine(instance: str | None, as_json: bool) -> Engine:
    """The instance's engine; a write's read pass runs in a detached process that outlives us."""
    engine: Engine = run_core(lambda: {"engine": Engine.open(instance)}, as_json)["engine"]
    engine.capture_mode = "process"
    return engine


def _show(payload: dict[str, Any], as_json: bool, renderer: str) -> None:
    if as_json:
        output.print_json(payload)
    else:
        from revetly_cli import render_writes
        from revetly_cli.render_text import terminal_payload

        shown = terminal_payload(payload)
        render_writes.render_recovered(console(), shown)
        renderer_named(renderer)(console(), shown)
    if payload.get("status") == "refused":
        raise typer.Exit(EXIT_REFUSED)


@review_app.command("list")
def review_list(
    instance: InstanceOpt = None,
    status: Annotated[str, typer.Option("--status", help="pending (default), applied, refused, "
                                        "resolved, withdrawn or all.")] = "pending",
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of list_reviews: the drafts waiting on a human (or any status)."""
    engine = _engine(instance, as_json)
    _show(run_core(lambda: engine.list_reviews(status, project), as_json), as_json,
          twin_renderer("review list"))


@review_app.command("show")
def review_show(
    review_id: Annotated[str, typer.Argument(help="REV-… id")],
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """One review whole: its state and the draft as the reviewer reads it."""
    engine = _engine(instance, as_json)
    _show(run_core(lambda: engine.show_review(review_id), as_json), as_json,
          twin_renderer("review show"))


def _answer(review_id: str, decision: Literal["approve", "reject"], reason: str | None,
            instance: str | None, as_json: bool) -> None:
    """A terminal answer to a review: resolve_review with decided_via cli."""
    engine = _engine(instance, as_json)
    payload = run_core(lambda: engine.resolve_review(review_id, decision, reason,
                                                 decided_via="cli"), as_json)
    _show(payload, as_json, twin_renderer(f"review {decision}"))


@review_app.command("approve")
def review_approve(
    review_id: Annotated[str, typer.Argument(help="REV-… id")],
    reason: ReasonOpt = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Approve a draft: the story is written and committed under your name (REVETLY_REVIEWER)."""
    _answer(review_id, "approve", reason, instance, as_json)


@review_app.command("reject")
def review_reject(
    review_id: Annotated[str, typer.Argument(help="REV-… id")],
    reason: ReasonOpt = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Reject a draft: nothing is written and the reason is kept on the review."""
    _answer(review_id, "reject", reason, instance, as_json)


@review_app.command("withdraw")
def review_withdraw(
    review_id: Annotated[str, typer.Argument(help="REV-… id")],
    reason: ReasonOpt = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Take a review off the list without deciding it (no approval, no rejection)."""
    engine = _engine(instance, as_json)
    payload = run_core(lambda: engine.withdraw_review(review_id, reason, decided_via="cli"), as_json)
    _show(payload, as_json, twin_renderer("review withdraw"))


@app.command("status-set")
def status_set(
    artifact_id: Annotated[str, typer.Argument(help="The work item's id.")],
    status: Annotated[str, typer.Argument(help="draft, ready, in-progress, done, parked or "
                                          "discarded.")],
    claimed_by: Annotated[str | None, typer.Option("--claimed-by", help="Who starts it "
                                                   "(in-progress; default: you).")] = None,
    reason: ReasonOpt = None,
    verdict: Annotated[list[str] | None, typer.Option(
        "--verdict", help="done: met, partial or not-met, once per criterion in order.")] = None,
    project: ProjectOpt = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The twin of set_status: flip a status (claim on in-progress, delivery record on done)."""
    engine = _engine(instance, as_json)
    payload = run_core(lambda: engine.set_status(artifact_id, status, claimed_by, reason,
                                             list(verdict) if verdict else None,
                                             project=project), as_json)
    _show(payload, as_json, twin_renderer("status-set"))


def _revises(values: list[str]) -> list[Any]:
    """--revises STORY-0007 or STORY-0007:1,3 (positions after the colon)."""
    out: list[Any] = []
    for v in values:
        item, _, positions = v.partition(":")
        if not positions:
            out.append(item)
            continue
        try:
            out.append({"id": item, "criteria": [int(p) for p in positions.split(",")]})
        except ValueError:
            out.append({"id": item, "criteria": positions.split(",")})  # core names the problem
    return out


@app.command()
def decide(
    title: Annotated[str, typer.Argument(help="The decision, in a few words.")],
    body: Annotated[str, typer.Option("--body", help="What was decided and why.")],
    supersedes: Annotated[list[str] | None, typer.Option(
        "--supersedes", help="A note this decision replaces whole (repeatable).")] = None,
    revises: Annotated[list[str] | None, typer.Option(
        "--revises", help="A work item it changes part of: ID or ID:1,3 (repeatable).")] = None,
    related: Annotated[list[str] | None, typer.Option(
        "--related", help="An id the decision bears on (repeatable).")] = None,
    project: ProjectOpt = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """record_conversation with one decision: a conversation note and its decision note."""
    engine = _engine(instance, as_json)
    decision: dict[str, Any] = {"title": title, "decision": body}
    if supersedes:
        decision["supersedes"] = list(supersedes)
    if revises:
        decision["revises"] = _revises(list(revises))
    payload = run_core(lambda: engine.record_conversation(title, body, [decision],
                                                      list(related or []), project=project),
                   as_json)
    _show(payload, as_json, twin_renderer("decide"))


@app.command()
def note(
    title: Annotated[str, typer.Argument(help="What the conversation was about.")],
    body: Annotated[str, typer.Option("--body", help="The note itself.")],
    related: Annotated[list[str] | None, typer.Option(
        "--related", help="An id the note bears on (repeatable).")] = None,
    project: ProjectOpt = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """record_conversation without decisions: one conversation note, committed."""
    engine = _engine(instance, as_json)
    payload = run_core(lambda: engine.record_conversation(title, body, None, list(related or []),
                                                      project=project), as_json)
    _show(payload, as_json, twin_renderer("note"))
