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


class OutsideBacklog(TypedDict):
    """Work items the project holds outside its backlog folders."""

    count: int
    items: list[BacklogRow]


class BacklogAnswer(Envelope):
    """The answer of list_backlog."""

    items: list[BacklogRow]
    total: int
    limit: int
    next_cursor: NotRequired[str]
    truncated: NotRequired[CutReport]
    outside_backlog: NotRequired[OutsideBacklog | dict[str, OutsideBacklog]]
