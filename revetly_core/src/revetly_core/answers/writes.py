"""The write side's answers: drafts and revisions, the review record, status and conversations.

A write answers in more than one shape (awaiting review, parked, already answered, refused
inside its body, app-only), so its keys are declared and none is required: the schema names
what a key holds whenever it is present.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from revetly_core.answers.common import JSONObject


class GateAnswer(TypedDict, total=False):
    """submit_draft, submit_revision and raise_review: where the review now waits."""

    status: str
    review_id: str
    gate: str | None
    wrote: bool
    project: str | None
    needs: JSONObject
    detail: str
    fix: str
    find_with: str
    raise_with: str
    resolve_tool: str
    withdraw_tool: str
    state_tool: str
    raised_now: bool
    dialog: str
    tool: str
    recovered: list[Any]


class ReviewState(TypedDict, total=False):
    """One review's state (review_state; resolve_review and withdraw_review answer it too)."""

    review_id: str
    status: str
    kind: str
    project: str | None
    title: str | None
    drafted_by: JSONObject
    created_at: str
    updated_at: str
    gate: str | None
    raised: int
    wrote: bool
    artifact_id: str | None
    decision: str
    reason: str | None
    decided_by: JSONObject
    decided_at: str
    decided_via: str
    decided_channel: str
    decided_channel_detail: str | None
    decision_gate_enforced: bool
    path: str
    commit: str | None
    capture: str | None
    refusal: JSONObject
    draft: JSONObject
    raises: list[JSONObject]
    answered_now: bool
    raised_now: bool
    detail: str
    fix: str
    dialog: str
    tool: str
    recovered: list[Any]


class ReviewRow(TypedDict, total=False):
    """One review as list_reviews lists it."""

    review_id: str
    status: str
    kind: str
    title: str | None
    project: str | None
    drafted_by: str | None
    created_at: str
    gate: str | None
    artifact_id: str | None


class ReviewList(TypedDict, total=False):
    """list_reviews: the reviews on record with a status."""

    status: str
    count: int
    reviews: list[ReviewRow]
    project: str
    corrupt: list[Any]


class StatusAnswer(TypedDict, total=False):
    """set_status: the flip, the claim it took, and the delivery record it wrote."""

    artifact_id: str
    status: str | None
    previous_status: str | None
    project: str | None
    recorded_by: JSONObject
    wrote: bool
    unchanged: bool
    commit: str | None
    did: str
    claim: JSONObject | None
    claim_outcome: str
    delivery: JSONObject
    discard_reason: str | None
    note: str
    capture: str | None
    code: str
    detail: str
    fix: str
    holder: str
    held_since: str
    recovered: list[Any]
    writeback: JSONObject
    """What a write adapter landed on the tracker and what it did not (``not_landed``)."""
    claim_note: JSONObject
    delivery_note: JSONObject
    claim_kept: JSONObject
    claim_not_recorded: str


class WrittenNote(TypedDict, total=False):
    """A note a write put on disk."""

    artifact_id: str
    path: str
    title: str
    supersedes: list[str]
    revises: list[Any]


class ConversationAnswer(TypedDict, total=False):
    """record_conversation: the conversation note and its decision notes, in one commit."""

    wrote: bool
    project: str | None
    recorded_by: JSONObject
    conversation: WrittenNote
    decisions: list[WrittenNote]
    superseded: list[str]
    commit: str | None
    capture: str | None
    recovered: list[Any]
