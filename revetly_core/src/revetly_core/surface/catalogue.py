"""The tool registry: every tool declared once - its name, what it tells a model, how it
behaves and the engine call that answers it; its arguments (`argument_specs.py`) and its CLI
twins (`twins.py`) are plain data beside it, by tool name, so the CLI can read them without
loading the engine. Both shells are generated from these declarations (revetly_mcp registers
each tool from one; revetly_cli makes each twin's command from one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from revetly_core.engine import Engine
from revetly_core.surface.argument_specs import arguments_of
from revetly_core.surface.twins import CliTwin, twins_of

if TYPE_CHECKING:
    from revetly_core.surface.tool_arguments import ToolArguments

EngineCall = Callable[..., Mapping[str, Any]]
"""An engine method, unbound (``Engine.search_context``): called as ``call(engine, **arguments)``.
Naming the attribute, not a string, makes a renamed method a type error here. Any mapping
answer fits (a dict, or a typed answer declared as a TypedDict)."""

Kind = Literal["read", "write", "reviewer"]

REVIEW_APP_URI = "ui://revetly/review.html"
"""The review app's resource: rendered beside a gated write by a host with the Apps extension."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the surface declares it; the MCP shell turns this into a tool definition."""

    name: str
    title: str
    kind: Kind
    description: str
    read_only: bool
    destructive: bool
    idempotent: bool
    call: EngineCall
    """The engine method that answers the tool."""
    opens_review: bool = False
    takes_project: bool = False
    no_cli: str = ""
    """Why a tool has no CLI twin (a human does that another way); empty when it has one."""

    @property
    def arguments(self) -> tuple[str, ...]:
        """Every argument the tool takes, by name; any other name is refused before the tool
        runs."""
        return tuple(spec.name for spec in arguments_of(self.name))

    @property
    def parameters(self) -> type[ToolArguments]:
        """The tool's typed arguments: the input schema a client sees is built from this model
        (made on first use, so reading the registry does not load pydantic)."""
        from revetly_core.surface.tool_arguments import MODELS

        return MODELS[self.name]

    @property
    def cli(self) -> tuple[CliTwin, ...]:
        """The tool's CLI twins; empty only where ``no_cli`` says why."""
        return twins_of(self.name)

    @property
    def app_only(self) -> bool:
        """The reviewer's own tools: meant for the review app, never for a model."""
        return self.kind == "reviewer"

    def meta(self) -> dict[str, object]:
        """The tool's `_meta`: app-only visibility, or the review app a gated write opens."""
        if self.app_only:
            return {"ui": {"visibility": ["app"]}}
        if self.opens_review:
            return {"ui": {"resourceUri": REVIEW_APP_URI}}
        return {}


def _read(name: str, title: str, description: str, call: EngineCall) -> ToolSpec:
    return ToolSpec(name, title, "read", description, read_only=True, destructive=False,
                    idempotent=True, call=call, takes_project=name != "context_health")


NO_DRAFT_COMMAND = ("a draft is an agent's proposal for a human to review; a human writes the "
                    "story file itself and runs `revetly sync`")


TOOLS: tuple[ToolSpec, ...] = (
    _read("search_context", "Search CONTEXT",
          "Hybrid keyword search over every artifact (stories, decisions, notes, delivery records) "
          "and the facts declared between them. Pass a few distinctive words, not a sentence; "
          "limit 1-50 (default 10). Holding an id? Call get_artifact instead. deleted='include' "
          "or 'only' reads deleted work. Cuts and empty answers are named in the payload.",
          Engine.search_context),
    _read("get_artifact", "Get one artifact",
          "One artifact by id (or a commit sha). Default: the brief - its own words, criteria, "
          "declared links and marks. history_after ('' = from the start) serves the full record "
          "with history; depth (an integer, or 'declared') serves the declared branch beneath it. "
          "Read this before drafting against or shipping an item.",
          Engine.get_artifact),
    _read("list_backlog", "List the backlog",
          "The project's work items as compact rows (id, title, status, type, parent). Filter by "
          "status and pbi_type (a value or a comma list) and provenance; limit 1-500 rows per "
          "page, then pass next_cursor as cursor for the next page. Items outside every type map "
          "are counted under outside_backlog.",
          Engine.list_backlog),
    _read("get_scope", "Ask about a scope",
          "Three questions about one scope. question='binding': what already binds an "
          "artifact_id (depth narrows its branch) or a topic: decisions and constraints, with "
          "provenance; with path, which stories and decisions are behind a file. "
          "question='drift': what was asked for against what shipped. question='deltas': what "
          "changed in a window (since/until, clock).",
          Engine.get_scope),
    _read("get_authoring_context", "Gather what to draft from",
          "The bundle to draft a story from: the nearest backlog items, their documents and paths, "
          "and the decisions that bind them. Pass the drafting intent in plain words as topic "
          "(limit narrows the backlog). Draft grounded in it, cite the ids that informed the "
          "draft, and never contradict a binding statement.",
          Engine.get_authoring_context),
    _read("context_health", "Check CONTEXT health",
          "Whether the last read pass landed, per source, with the corpus revision, freshness and "
          "counts. Call before trusting an empty answer. After a write, pass its capture handle "
          "as capture to learn whether that write has reached CONTEXT yet (pending is not failed).",
          Engine.context_health),
    _read("list_reviews", "List reviews",
          "Drafts waiting on a human: status pending (default), applied, refused, resolved, "
          "withdrawn or all. Use raise_review with a review_id to put one back in front of a "
          "reviewer. Read-only.",
          Engine.list_reviews),
    ToolSpec("review_state", "Review state", "reviewer",
             "Whether one review (REV-...) has been answered, and how. For the review app: poll it "
             "so a stale panel never offers a second decision.",
             read_only=True, destructive=False, idempotent=True,
             call=Engine.review_state),
    ToolSpec("submit_draft", "Submit a story draft", "write",
             "Propose a new story: title, description, acceptance_criteria (a list, not a section in "
             "the description), optional parent and repository. A human reviews it before anything "
             "is written. On 'awaiting-review' report the review_id and stop: do not submit again. "
             "Ground it first with get_authoring_context.",
             read_only=False, destructive=False, idempotent=False, opens_review=True,
             takes_project=True, call=Engine.submit_draft, no_cli=NO_DRAFT_COMMAND),
    ToolSpec("submit_revision", "Submit a story revision", "write",
             "Propose a change to an existing story: artifact_id, the new description and "
             "acceptance_criteria (optionally a new title). Gated on a human like submit_draft; on "
             "'awaiting-review' report the review_id and stop.",
             read_only=False, destructive=False, idempotent=False, opens_review=True,
             takes_project=True, call=Engine.submit_revision, no_cli=NO_DRAFT_COMMAND),
    ToolSpec("set_status", "Set a work item's status", "write",
             "Flip a work item's status: draft, ready, in-progress, done, parked or discarded. "
             "in-progress records a claim (claimed_by names you; a reason takes over another's). "
             "done takes verdicts, one per criterion: {criterion, verdict: met|partial|not-met, "
             "note}. Not gated; committed at once.",
             read_only=False, destructive=False, idempotent=True, takes_project=True,
             call=Engine.set_status),
    ToolSpec("record_conversation", "Record a conversation or decision", "write",
             "Record a conversation note with title and body; decisions is a list of decision "
             "entries (each may name supersedes: record ids it replaces whole, or revises: work "
             "items and criteria it changes); related_ids names what it bears on. Not gated. Poll "
             "context_health(capture) before reading it back.",
             read_only=False, destructive=False, idempotent=False, takes_project=True,
             call=Engine.record_conversation),
    ToolSpec("raise_review", "Raise a waiting review", "write",
             "Put a pending review (REV-...) back in front of a human on the gate this client "
             "renders. It carries the review, it does not decide it. Find ids with list_reviews.",
             read_only=False, destructive=False, idempotent=True, opens_review=True,
             call=Engine.raise_review),
    ToolSpec("resolve_review", "Resolve a review", "reviewer",
             "The reviewer's answer from the review app: decision approve or reject, with a reason. "
             "Approve writes and commits the story. Never call this for your own draft.",
             read_only=False, destructive=False, idempotent=False,
             call=Engine.resolve_review),
    ToolSpec("withdraw_review", "Withdraw a review", "reviewer",
             "The reviewer taking a review off the list without deciding it, from the review app. "
             "Writes no approval and no rejection.",
             read_only=False, destructive=False, idempotent=True,
             call=Engine.withdraw_review),
)

TOOLS_BY_NAME = {spec.name: spec for spec in TOOLS}


def tool_spec(name: str) -> ToolSpec:
    """The catalogue entry of one tool."""
    return TOOLS_BY_NAME[name]


COMMAND_CALLS: dict[str, EngineCall] = {"review show": Engine.show_review}
"""The twins answered by another engine method than their tool's: `review show` prints the
review whole (its state and the draft), which neither review_state nor raise_review serves."""


def command_call(tool: str, command: str) -> EngineCall:
    """The engine method a twin's command calls: its tool's, unless the command names its own."""
    return COMMAND_CALLS.get(command, tool_spec(tool).call)
