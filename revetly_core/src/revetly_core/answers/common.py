"""The pieces every read answer shares: freshness, history, the cut reports and absent halves.

TypedDict comes from typing_extensions: pydantic reads its schema only from that one on 3.11.
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

JSONObject = dict[str, Any]
"""An object whose keys the answer does not fix (front matter, a source's own metadata)."""


class Absent(TypedDict):
    """A half of the answer this edition does not compute, and why (reason 'lite')."""

    absent: bool
    reason: str


class CutReport(TypedDict):
    """A list shortened to fit the read budget: what the whole holds and what was listed."""

    reason: str
    total: int
    listed: int
    note: str
    omitted: NotRequired[list[str]]


class Freshness(TypedDict):
    """When the oldest source was read, and whether a watcher keeps CONTEXT current."""

    oldest_source_read_at: str | None
    watch: bool
    stale_sources: NotRequired[list[str]]


class FailedPass(TypedDict):
    """Named on a read when the last pass failed: what CONTEXT still serves."""

    last_pass_failed: bool
    error: str | None
    serving_revision: int | None
    note: NotRequired[str]


class ProjectKeys(TypedDict):
    """The keys naming which project answered, and how far back its sources were read."""

    project: NotRequired[str]
    history: NotRequired[JSONObject]


class OneProjectEnvelope(ProjectKeys):
    """The envelope of an answer about one project (context_health): its blocks unkeyed."""

    freshness: NotRequired[Freshness]
    context_health: NotRequired[FailedPass]


class Envelope(ProjectKeys):
    """What every read carries besides its answer (reads/envelope.py). A spanning read names
    its projects under ``projects`` and keys freshness, history and context_health by project."""

    projects: NotRequired[list[str]]
    freshness: NotRequired[Freshness | dict[str, Freshness]]
    context_health: NotRequired[FailedPass | dict[str, FailedPass]]


class IdsCount(TypedDict):
    """A count and the first ids it counts."""

    count: int
    ids: list[str]


class Reviser(TypedDict):
    """A decision note that revises a work item's criteria."""

    id: str
    criteria: list[int]
    criterion_changed: NotRequired[bool]


class Marks(TypedDict):
    """The marks a row carries when they apply (reads/marks.py)."""

    deleted: NotRequired[bool]
    deleted_at: NotRequired[str | None]
    deleted_clock: NotRequired[str | None]
    deleted_note: NotRequired[str | None]
    revised_by: NotRequired[list[Reviser]]
    superseded_by: NotRequired[list[str]]
    provenance: NotRequired[str]
    discard_reason: NotRequired[str]
