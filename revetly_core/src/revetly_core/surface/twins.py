"""Each tool's CLI twins as plain data: the `revetly` commands that answer what a tool answers.

revetly_cli generates every twin from this and the tool's declared arguments
(`argument_specs.py`): the command's values, their types, defaults and help come from the
arguments; a twin declares only what makes it pleasant by hand — a value taken positionally,
an option spelled otherwise (`--type`), an argument the command fixes (`drift` fixes
``question``), one it composes (`decide` builds one decision), a value of its own handed to the
renderer (`--wide`). Nothing here imports more than the standard library, so the CLI reads it
at start without loading the engine or pydantic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from revetly_core.surface.argument_specs import REQUIRED, ArgumentSpec, arguments_of


class _Declared:
    """The marker of a value a twin does not override: the argument's declaration holds."""

    def __repr__(self) -> str:
        return "DECLARED"


DECLARED: Final = _Declared()


@dataclass(frozen=True)
class CliParam:
    """How a command takes one value: a declared argument of its tool (by name) with what the
    command changes about it, or a value of the command's own (then with its type and default)."""

    name: str
    positional: bool = False
    flags: tuple[str, ...] = ()
    """The option's spellings; empty: ``--`` and the name with dashes."""
    rename: str = ""
    """The command's own name for the argument (``verdicts`` taken as ``--verdict``)."""
    help: str | None = None
    annotation: Any = DECLARED
    default: object = DECLARED
    convert: Callable[[Any], Any] | None = None
    """Turns the command-line text into the value the tool takes (``--depth 2`` → 2)."""
    local_path: bool = False
    """A file named from here: the engine resolves it against the declared repositories."""


@dataclass(frozen=True)
class CommandParam:
    """One value of a generated command, resolved: what typer is told, and where it goes."""

    name: str
    annotation: Any
    default: object
    help: str
    flags: tuple[str, ...]
    positional: bool
    argument: str | None
    """The tool argument it carries; None for a value of the command's own."""
    convert: Callable[[Any], Any] | None = None
    local_path: bool = False

    @property
    def required(self) -> bool:
        """True when the command cannot run without the value."""
        return self.default is REQUIRED


Compose = Callable[[Mapping[str, Any]], dict[str, Any]]
"""Builds tool arguments from a command's own values (`decide`'s one decision)."""


@dataclass(frozen=True)
class CliTwin:
    """A `revetly` command that answers what a tool answers: its command path ("review list"),
    the renderer of its human output ("module.function" in revetly_cli), its --help line, and
    what it changes about the tool's arguments. ``write``: the command writes, so its read pass
    runs in a detached process and a payload with status 'refused' exits 2."""

    command: str
    renderer: str
    help: str
    params: tuple[CliParam, ...] = ()
    omits: tuple[str, ...] = ()
    """Tool arguments this command leaves at their default (another twin takes them)."""
    fixed: tuple[tuple[str, object], ...] = ()
    composes: tuple[str, ...] = ()
    compose: Compose | None = None
    renderer_options: tuple[str, ...] = ()
    write: bool = False
    order: tuple[str, ...] = ()
    """The command's values in the order its --help lists them (``instance`` among them), where
    that is not the default: positional values, ``instance``, the rest in the declaration's
    order."""

    @property
    def fixes(self) -> tuple[str, ...]:
        """The tool arguments the command sets itself rather than taking as a value."""
        return tuple(name for name, _ in self.fixed) + self.composes

    @property
    def renames(self) -> tuple[tuple[str, str], ...]:
        """(tool argument, command value) for each argument the command takes under its own name."""
        return tuple((p.name, p.rename) for p in self.params if p.rename)


def depth_value(text: str) -> int | str:
    """--depth as the core takes it: a whole number, or a word passed through unchanged."""
    return int(text) if text.isdigit() else text


def revises_value(values: list[str]) -> list[Any]:
    """--revises STORY-0007 or STORY-0007:1,3 (criteria positions after the colon)."""
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


def one_decision(values: Mapping[str, Any]) -> dict[str, Any]:
    """`decide`'s decisions: one decision titled like the note, with what it supersedes and
    revises when given."""
    decision: dict[str, Any] = {"title": values["title"], "decision": values["body"]}
    if values.get("supersedes"):
        decision["supersedes"] = list(values["supersedes"])
    if values.get("revises"):
        decision["revises"] = revises_value(list(values["revises"]))
    return {"decisions": [decision]}


_N = ("--limit", "-n")
_RELATED = CliParam("related_ids", rename="related", annotation=list[str] | None,
                    flags=("--related",))
_ARTIFACT = CliParam("artifact_id", flags=("--artifact", "-a"),
                     help="Read the branch beneath this artifact.")
_REVIEW_ID = CliParam("review_id", positional=True)


_ANSWER_ORDER = ("review_id", "reason", "instance")


def _review_answer(decision: str, help: str) -> CliTwin:
    return CliTwin(f"review {decision}", "render_writes.render_answer", help,
                   (_REVIEW_ID,), fixed=(("decision", decision),), write=True,
                   order=_ANSWER_ORDER)


TWINS: dict[str, tuple[CliTwin, ...]] = {
    "search_context": (
        CliTwin("search", "render.render_search",
                "Artifacts, passages and facts for a query, one line per row (the "
                "search_context read).",
                (CliParam("query", positional=True), CliParam("limit", flags=_N),
                 CliParam("wide", annotation=bool, default=False,
                          help="Print each summary whole, not cut to one line.")),
                renderer_options=("wide",)),
    ),
    "get_artifact": (
        CliTwin("inspect", "render.render_artifact",
                "The twin of get_artifact: one artifact's own words, declared links and marks.",
                (CliParam("artifact_id", positional=True),), omits=("depth",)),
        CliTwin("branch", "render.render_branch",
                "The twin of get_artifact with depth: the declared hierarchy beneath an artifact.",
                (CliParam("artifact_id", positional=True, help="The root of the branch."),
                 CliParam("depth", annotation=str, default="declared", convert=depth_value)),
                omits=("history_after",),
                order=("artifact_id", "instance", "depth", "project", "deleted", "inferred")),
    ),
    "list_backlog": (
        CliTwin("backlog", "render.render_backlog",
                "The twin of list_backlog: the project's work items as compact rows.",
                (CliParam("pbi_type", flags=("--type",)), CliParam("limit", flags=_N)),
                order=("instance", "status", "pbi_type", "provenance", "limit", "cursor", "project",
                       "deleted")),
    ),
    "get_scope": (
        CliTwin("binding", "render_scope.render_binding",
                "The twin of get_scope(question='binding'): what already binds an artifact, a "
                "topic or\na file (which stories and decisions are behind it).",
                (CliParam("artifact_id", positional=True), CliParam("topic", flags=("--topic", "-t")),
                 CliParam("path", flags=("--path", "-p"), local_path=True),
                 CliParam("limit", flags=_N)),
                omits=("since", "until", "clock"), fixed=(("question", "binding"),),
                order=("artifact_id", "topic", "path", "depth", "instance", "project", "limit")),
        CliTwin("drift", "render_scope.render_drift",
                "The twin of get_scope(question='drift'): what was asked for against what shipped.",
                (_ARTIFACT, CliParam("limit", flags=_N)),
                omits=("topic", "path", "depth", "clock"), fixed=(("question", "drift"),),
                order=("instance", "artifact_id", "since", "until", "project", "limit")),
        CliTwin("deltas", "render_scope.render_deltas",
                "The twin of get_scope(question='deltas'): what changed over a window, on one "
                "clock.",
                (_ARTIFACT, CliParam("limit", flags=_N)),
                omits=("topic", "path", "depth"), fixed=(("question", "deltas"),),
                order=("instance", "artifact_id", "since", "until", "clock", "project", "limit")),
    ),
    "get_authoring_context": (
        CliTwin("author", "render_scope.render_author",
                "The twin of get_authoring_context: nearest backlog, related material and what "
                "binds it.",
                (CliParam("topic", positional=True), CliParam("limit", flags=_N)),
                order=("topic", "instance", "project", "limit")),
    ),
    "context_health": (
        CliTwin("status", "render.render_status",
                "What context_health reports: last pass per source, revision, freshness, counts."),
    ),
    "list_reviews": (
        CliTwin("review list", "render_writes.render_reviews",
                "The twin of list_reviews: the drafts waiting on a human (or any status).",
                write=True),
    ),
    "review_state": (
        CliTwin("review show", "render_writes.render_review",
                "One review whole: its state and the draft as the reviewer reads it.",
                (_REVIEW_ID,), write=True),
    ),
    "raise_review": (
        CliTwin("review show", "render_writes.render_review",
                "One review whole: its state and the draft as the reviewer reads it.",
                (_REVIEW_ID,), write=True),
    ),
    "set_status": (
        CliTwin("status-set", "render_writes.render_status_set",
                "The twin of set_status: flip a status (claim on in-progress, delivery record "
                "on done).",
                (CliParam("artifact_id", positional=True), CliParam("status", positional=True),
                 CliParam("verdicts", rename="verdict", annotation=list[str] | None,
                          flags=("--verdict",))),
                write=True, order=("artifact_id", "status", "claimed_by", "reason", "verdict",
                                   "project", "instance")),
    ),
    "record_conversation": (
        CliTwin("decide", "render_writes.render_recorded",
                "record_conversation with one decision: a conversation note and its decision "
                "note.",
                (CliParam("title", positional=True, help="The decision, in a few words."),
                 CliParam("body", help="What was decided and why."),
                 CliParam("related_ids", rename="related", annotation=list[str] | None,
                          flags=("--related",), help="An id the decision bears on (repeatable)."),
                 CliParam("supersedes", annotation=list[str] | None, default=None,
                          help="A note this decision replaces whole (repeatable)."),
                 CliParam("revises", annotation=list[str] | None, default=None,
                          help="A work item it changes part of: ID or ID:1,3 (repeatable).")),
                composes=("decisions",), compose=one_decision, write=True,
                order=("title", "body", "supersedes", "revises", "related", "project", "instance")),
        CliTwin("note", "render_writes.render_recorded",
                "record_conversation without decisions: one conversation note, committed.",
                (CliParam("title", positional=True), _RELATED),
                fixed=(("decisions", None),), write=True,
                order=("title", "body", "related", "project", "instance")),
    ),
    "resolve_review": (
        _review_answer("approve", "Approve a draft: the story is written and committed under "
                       "your name (REVETLY_REVIEWER)."),
        _review_answer("reject", "Reject a draft: nothing is written and the reason is kept on "
                       "the review."),
    ),
    "withdraw_review": (
        CliTwin("review withdraw", "render_writes.render_answer",
                "Take a review off the list without deciding it (no approval, no rejection).",
                (_REVIEW_ID,), write=True, order=_ANSWER_ORDER),
    ),
}
"""Every tool's CLI twins, by tool name; a tool with none says why in the catalogue."""

CLI_GROUPS: dict[str, str] = {
    "review": "Answer drafts waiting on a human: list, show, approve, reject, withdraw.",
}
"""The help line of each command group a twin's path names (``review`` of "review list")."""


def twins_of(tool: str) -> tuple[CliTwin, ...]:
    """The CLI twins of one tool (empty when it has none)."""
    return TWINS.get(tool, ())


def every_twin() -> list[tuple[str, CliTwin]]:
    """(tool, twin) for each command, once: a command twinned by two tools is listed under the
    first that declares it."""
    seen: set[str] = set()
    out: list[tuple[str, CliTwin]] = []
    for tool, twins in TWINS.items():
        for twin in twins:
            if twin.command not in seen:
                seen.add(twin.command)
                out.append((tool, twin))
    return out


def _option_flags(name: str) -> tuple[str, ...]:
    return ("--" + name.replace("_", "-"),)


def _resolved(spec: ArgumentSpec, given: CliParam | None) -> CommandParam:
    p = given or CliParam(spec.name)
    return CommandParam(
        name=p.rename or spec.name,
        annotation=spec.annotation if p.annotation is DECLARED else p.annotation,
        default=spec.default if p.default is DECLARED else p.default,
        help=spec.help if p.help is None else p.help,
        flags=p.flags or _option_flags(p.rename or spec.name),
        positional=p.positional, argument=spec.name, convert=p.convert, local_path=p.local_path)


def _own(p: CliParam) -> CommandParam:
    return CommandParam(name=p.name, annotation=p.annotation, default=p.default,
                        help=p.help or "", flags=p.flags or _option_flags(p.name),
                        positional=p.positional, argument=None, convert=p.convert)


def command_params(tool: str, twin: CliTwin) -> list[CommandParam]:
    """The values a twin's command takes, in order: the tool's declared arguments it does not
    fix or omit (as the twin changes them), then the command's own values."""
    overrides = {p.name: p for p in twin.params}
    declared = arguments_of(tool)
    names = {spec.name for spec in declared}
    skipped = set(twin.fixes) | set(twin.omits)
    params = [_resolved(spec, overrides.get(spec.name)) for spec in declared
              if spec.name not in skipped]
    params += [_own(p) for p in twin.params if p.name not in names]
    return params


def _given(value: Any) -> Any:
    """A repeatable option's values as a list, or None when none was given."""
    if isinstance(value, list | tuple):
        return list(value) or None
    return value


def tool_arguments(tool: str, twin: CliTwin, values: Mapping[str, Any]) -> dict[str, Any]:
    """The tool arguments a command's values stand for: each value under its argument's name
    (converted), then what the twin fixes and composes."""
    arguments: dict[str, Any] = {}
    for param in command_params(tool, twin):
        if param.argument is None:
            continue
        value = _given(values[param.name])
        if param.convert is not None and value is not None:
            value = param.convert(value)
        arguments[param.argument] = value
    arguments.update(twin.fixed)
    if twin.compose is not None:
        arguments.update(twin.compose(values))
    return arguments


def local_paths(tool: str, twin: CliTwin) -> tuple[str, ...]:
    """The tool arguments the command takes as a file named from here."""
    return tuple(p.argument for p in command_params(tool, twin) if p.local_path and p.argument)
