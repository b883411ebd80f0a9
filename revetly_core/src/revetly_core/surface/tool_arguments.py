"""Each tool's arguments as one typed model: the names, types and defaults a client may send.

The MCP shell builds each tool's input schema from these models, and the catalogue's argument
names are read from them, so an argument is declared here once. Field order is the order the
tool's arguments are listed in (refusals name them in it); the defaults are the engine's own.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class ToolArguments(BaseModel):
    """The base of every tool's argument model."""


class SearchContextArguments(ToolArguments):
    """search_context."""

    query: str
    limit: int = 10
    project: str | None = None
    deleted: str | None = None
    inferred: str | None = None


class GetArtifactArguments(ToolArguments):
    """get_artifact."""

    artifact_id: str
    project: str | None = None
    history_after: str | None = None
    depth: int | str | None = None
    deleted: str | None = None


class ListBacklogArguments(ToolArguments):
    """list_backlog."""

    status: str | None = None
    provenance: str | None = None
    pbi_type: str | None = None
    limit: int = 50
    cursor: str | None = None
    project: str | None = None
    deleted: str | None = None


class GetScopeArguments(ToolArguments):
    """get_scope."""

    question: str = "binding"
    artifact_id: str | None = None
    topic: str | None = None
    path: str | None = None
    depth: int | None = None
    since: str | None = None
    until: str | None = None
    clock: str | None = None
    limit: int | None = None
    project: str | None = None


class GetAuthoringContextArguments(ToolArguments):
    """get_authoring_context."""

    topic: str
    limit: int | None = None
    project: str | None = None


class ContextHealthArguments(ToolArguments):
    """context_health."""

    capture: str | None = None


class ListReviewsArguments(ToolArguments):
    """list_reviews."""

    status: str = "pending"
    project: str | None = None


class ReviewIdArguments(ToolArguments):
    """review_state and raise_review: one review by id."""

    review_id: str


class SubmitDraftArguments(ToolArguments):
    """submit_draft."""

    title: str
    description: str
    acceptance_criteria: list[str]
    parent: str | None = None
    repository: str | None = None
    project: str | None = None


class SubmitRevisionArguments(ToolArguments):
    """submit_revision."""

    artifact_id: str
    description: str
    acceptance_criteria: list[str]
    title: str | None = None
    project: str | None = None


class SetStatusArguments(ToolArguments):
    """set_status."""

    artifact_id: str
    status: str
    claimed_by: str | None = None
    reason: str | None = None
    verdicts: list[dict[str, Any]] | None = None
    project: str | None = None


class RecordConversationArguments(ToolArguments):
    """record_conversation."""

    title: str
    body: str
    decisions: list[dict[str, Any]] | None = None
    related_ids: list[str] | None = None
    project: str | None = None


class ResolveReviewArguments(ToolArguments):
    """resolve_review."""

    review_id: str
    decision: str
    reason: str | None = None


class WithdrawReviewArguments(ToolArguments):
    """withdraw_review."""

    review_id: str
    reason: str | None = None
