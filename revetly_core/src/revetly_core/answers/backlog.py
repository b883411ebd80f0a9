"""list_backlog: the project's work items as compact rows, paged by a forward-only cursor."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from revetly_core.answers.common import CutReport, Envelope, Marks


class BacklogRow(Marks):
    """One compact work-item row: identity, status, source time, then the marks that apply."""

    artifact_id: str
    title: str
    status: str | None
    artifact_type: str
    source_updated_at: str | None
    kind: NotRequired[str]
    parent: NotRequired[str | None]
    project: NotRequired[str]
    withheld: NotRequired[bool]


class OutsideRow(TypedDict):
    """An item no type map covered: its id, title, the source's own kind and why it is out."""

    artifact_id: str
    title: str
    kind: str
    why: str
    """``untyped`` (no native type, no mapped label) or ``unmapped`` (a native type no map names)."""
    native_type: NotRequired[str]
    labels: NotRequired[list[str]]


class OutsideBacklog(TypedDict):
    """The items ingest held outside the backlog: all of them counted, the rows a quarter of
    the read budget allows listed."""

    count: int
    items: list[OutsideRow]


class BacklogAnswer(Envelope):
    """The answer of list_backlog."""

    items: list[BacklogRow]
    total: int
    limit: int
    next_cursor: NotRequired[str]
    truncated: NotRequired[CutReport]
    outside_backlog: NotRequired[OutsideBacklog | dict[str, OutsideBacklog]]
    outside_backlog_truncated: NotRequired[CutReport | dict[str, CutReport]]
