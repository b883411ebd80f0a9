"""Each tool's arguments as plain data: name, type, default and what the argument means.

This is the one declaration of a tool's arguments. The pydantic models the MCP shell builds its
input schemas from (`tool_arguments.py`) are made from it, and so are the `revetly` commands
(revetly_cli reads it at start, where importing pydantic would cost more than the query). Order
is the order the tool lists its arguments in (refusals name them in it); the defaults are the
engine's own; ``help`` is the line a command's --help shows for the argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final


class _Required:
    """The default of an argument a call must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()


@dataclass(frozen=True)
class ArgumentSpec:
    """One argument of a tool: its name, its type (a plain annotation), default and help."""

    name: str
    annotation: Any
    default: object = REQUIRED
    help: str = ""

    @property
    def required(self) -> bool:
        """True when a call must give the argument (it has no default)."""
        return self.default is REQUIRED


def _arg(name: str, annotation: Any, default: object = REQUIRED, help: str = "") -> ArgumentSpec:
    return ArgumentSpec(name, annotation, default, help)


READ_AS = "Read as this project, or span several as a comma list ('a,b')."
WRITE_IN = "The project to write in."
DELETED = "'include' or 'only' to read deleted work."
REASON = "Why (kept on the record)."
REVIEW_ID = "REV-… id"

ARGUMENTS: dict[str, tuple[ArgumentSpec, ...]] = {
    "search_context": (
        _arg("query", str, help="What you are looking for, in a few words."),
        _arg("limit", int, 10, "Rows to serve (1-50)."),
        _arg("project", str | None, None, READ_AS),
        _arg("deleted", str | None, None, DELETED),
        _arg("inferred", str | None, None, "'all' widens the inferred half."),
    ),
    "get_artifact": (
        _arg("artifact_id", str, help="The artifact's id (or a commit sha)."),
        _arg("project", str | None, None, READ_AS),
        _arg("history_after", str | None, None,
             "Serve the full record, history after this point ('' for all)."),
        _arg("depth", int | str | None, None,
             "Levels to walk, or 'declared' for [backlog.parents]."),
        _arg("deleted", str | None, None, DELETED),
        _arg("inferred", str | None, None, "'all' serves the inferred half whole."),
    ),
    "list_backlog": (
        _arg("status", str | None, None, "A status, or a comma list."),
        _arg("provenance", str | None, None),
        _arg("pbi_type", str | None, None, "epic, feature, story, task or bug (or a list)."),
        _arg("limit", int, 50, "Rows per page (1-500)."),
        _arg("cursor", str | None, None, "next_cursor of the page before."),
        _arg("project", str | None, None, READ_AS),
        _arg("deleted", str | None, None, DELETED),
    ),
    "get_scope": (
        _arg("question", str, "binding", "binding, drift or deltas."),
        _arg("artifact_id", str | None, None, "The artifact whose scope to read."),
        _arg("topic", str | None, None, "A topic scope."),
        _arg("path", str | None, None, "A file in a declared code repository (from here, or "
             "as the repository names it)."),
        _arg("depth", int | None, None, "Levels of the branch beneath to walk."),
        _arg("since", str | None, None, "Window start (ISO date or time)."),
        _arg("until", str | None, None, "Window end, exclusive."),
        _arg("clock", str | None, None, "'source' (default) or 'ingest'."),
        _arg("limit", int | None, None, "Rows to serve; with path, the stories listed "
             "(default 5)."),
        _arg("project", str | None, None, READ_AS),
    ),
    "get_authoring_context": (
        _arg("topic", str, help="What the new story is about, in a few words."),
        _arg("limit", int | None, None, "Rows to serve."),
        _arg("project", str | None, None, READ_AS),
    ),
    "context_health": (
        _arg("capture", str | None, None, "A write's capture handle: has it reached CONTEXT?"),
    ),
    "list_reviews": (
        _arg("status", str, "pending",
             "pending (default), applied, refused, resolved, withdrawn or all."),
        _arg("project", str | None, None, WRITE_IN),
    ),
    "review_state": (_arg("review_id", str, help=REVIEW_ID),),
    "submit_draft": (
        _arg("title", str),
        _arg("description", str),
        _arg("acceptance_criteria", list[str]),
        _arg("parent", str | None, None),
        _arg("repository", str | None, None),
        _arg("project", str | None, None, WRITE_IN),
    ),
    "submit_revision": (
        _arg("artifact_id", str),
        _arg("description", str),
        _arg("acceptance_criteria", list[str]),
        _arg("title", str | None, None),
        _arg("project", str | None, None, WRITE_IN),
    ),
    "set_status": (
        _arg("artifact_id", str, help="The work item's id."),
        _arg("status", str, help="draft, ready, in-progress, done, parked or discarded."),
        _arg("claimed_by", str | None, None, "Who starts it (in-progress; default: you)."),
        _arg("reason", str | None, None, REASON),
        _arg("verdicts", list[dict[str, Any]] | None, None,
             "done: met, partial or not-met, once per criterion in order."),
        _arg("project", str | None, None, WRITE_IN),
    ),
    "record_conversation": (
        _arg("title", str, help="What the conversation was about."),
        _arg("body", str, help="The note itself."),
        _arg("decisions", list[dict[str, Any]] | None, None),
        _arg("related_ids", list[str] | None, None, "An id the note bears on (repeatable)."),
        _arg("project", str | None, None, WRITE_IN),
    ),
    "raise_review": (_arg("review_id", str, help=REVIEW_ID),),
    "resolve_review": (
        _arg("review_id", str, help=REVIEW_ID),
        _arg("decision", str, help="approve or reject."),
        _arg("reason", str | None, None, REASON),
    ),
    "withdraw_review": (
        _arg("review_id", str, help=REVIEW_ID),
        _arg("reason", str | None, None, REASON),
    ),
}
"""Every tool's arguments, by tool name."""


def arguments_of(tool: str) -> tuple[ArgumentSpec, ...]:
    """The declared arguments of one tool, in order."""
    return ARGUMENTS[tool]
