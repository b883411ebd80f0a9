"""context_health: whether the last read pass landed, per source, and what CONTEXT holds."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from revetly_core.answers.common import JSONObject, OneProjectEnvelope


class LastPass(TypedDict):
    """The last read pass: its outcome, whether it was full, and what it changed."""

    pass_id: int
    outcome: str
    full: bool
    started_at: str | None
    ended_at: str | None
    changed: dict[str, int]


class SourceHealth(TypedDict):
    """One source's last read."""

    source: str
    project: str | None
    last_read_at: str | None
    outcome: str | None
    floor: str | None
    gaps: list[Any]
    partial: bool
    last_counts: NotRequired[dict[str, int]]
    note: NotRequired[str]


class OutsideCounts(TypedDict):
    """The items no type map covered, counted as list_backlog's outside_backlog counts them,
    split by why, with the fix while any is held."""

    count: int
    untyped: int
    unmapped: int
    fix: NotRequired[str]


class IndexHealth(TypedDict):
    """The keyword index: its backend, its revision, and whether it matches CONTEXT."""

    backend: str
    revision: int | None
    current: bool


class HealthAnswer(OneProjectEnvelope):
    """The answer of context_health (``capture`` when one capture was asked about)."""

    instance: str
    corpus_revision: int | None
    last_pass: LastPass | None
    sources: list[SourceHealth]
    counts: JSONObject
    problems: int
    index: IndexHealth
    criteria_unparsed: NotRequired[dict[str, int]]
    outside_backlog: NotRequired[OutsideCounts]
    inferred: NotRequired[JSONObject]
    capture: NotRequired[JSONObject]
