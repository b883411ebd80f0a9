"""The engine's inner vocabulary: artifact types, kinds and statuses, as plain constants."""

from __future__ import annotations

from typing import Final

WORK_ITEM_TYPES: Final = ("epic", "feature", "story", "task", "bug")
NOTE_TYPES: Final = ("decision", "constraint", "assumption", "conversation", "reference")
STATEMENT_NOTE_TYPES: Final = ("decision", "constraint", "assumption")
RECORD_TYPES: Final = ("delivery",)
COMMIT_TYPE: Final = "commit"
ARTIFACT_TYPES: Final = WORK_ITEM_TYPES + NOTE_TYPES + RECORD_TYPES

WORK_ITEM_STATUSES: Final = ("draft", "ready", "in-progress", "done", "parked", "discarded")
DECISION_STATUSES: Final = ("proposed", "accepted", "rejected", "superseded")

LIST_LINK_FIELDS: Final = ("cites", "references", "related_ids", "supersedes")
"""Frontmatter fields that declare a list of links, each to one id."""

RELATION_OF_FIELD: Final = {
    "parent": "parent",
    "cites": "cites",
    "references": "references",
    "related_ids": "related",
    "supersedes": "supersedes",
    "revises": "revises",
    "delivers": "delivers",
    "implemented_by": "implemented_by",
    "dependencies": "depends_on",
}
"""Frontmatter field -> the relation its declared link carries."""

DEFAULT_PARENTS: Final = {
    "feature": ["epic"],
    "story": ["feature", "epic"],
    "task": ["story", "feature"],
    "bug": ["story", "feature", "epic"],
}
"""Default declared hierarchy: child type -> the types it may hang under."""


def kind_of(artifact_type: str) -> str:
    """The node kind of an artifact type: work-item, doc, delivery-record or commit."""
    if artifact_type in WORK_ITEM_TYPES:
        return "work-item"
    if artifact_type in NOTE_TYPES:
        return "doc"
    if artifact_type in RECORD_TYPES:
        return "delivery-record"
    if artifact_type == COMMIT_TYPE:
        return "commit"
    return artifact_type


from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402


@dataclass
class Artifact:
    """One artifact as the read pass stores it: the source's own words and declared fields."""

    id: str
    type: str
    title: str
    source: str
    project: str
    body: str = ""
    status: str | None = None
    parent: str | None = None
    owner: str | None = None
    criteria: list[str] = field(default_factory=list)
    criteria_unparsed: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    source_path: str | None = None
    source_uri: str | None = None
    blob: str | None = None
    created_at: str | None = None
    source_updated_at: str | None = None
    deleted: bool = False
    deleted_at: str | None = None
    deleted_clock: str | None = None
    deleted_note: str | None = None
    provenance: str = "source-of-record"
    aliases: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return kind_of(self.type)


@dataclass(frozen=True)
class Link:
    """A stated edge between two artifacts, carrying the method that found it."""

    src: str
    dst: str
    relation: str
    method: str
    detail: tuple[tuple[str, Any], ...] = ()

    def detail_dict(self) -> dict[str, Any]:
        return dict(self.detail)


@dataclass(frozen=True)
class HistoryEntry:
    """One change a source recorded to an artifact (a commit that added, edited or removed it)."""

    artifact_id: str
    at: str
    change: str
    revision: str
    author: str | None = None
    summary: str | None = None
