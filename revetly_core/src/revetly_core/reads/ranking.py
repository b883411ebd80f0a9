"""The six ranking signals. Each is one function; the fused score is multiplied by all six."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from typing import NamedTuple

from revetly_core.model import STATEMENT_NOTE_TYPES

DEFAULT_WEIGHTS: dict[str, float] = {
    "exact-id": 4.0,
    "recency": 0.0,
    "provenance": 1.0,
    "link-count": 0.0,
    "kind": 0.6,
    "superseded": 0.5,
}
"""Signal name -> default weight; revetly.toml [ranking] overrides any of them."""

LEG_SHARES: dict[str, float] = {
    "phrase": 0.25,
    "feedback": 0.0,
    "semantic": 0.25,
    "recipe": 0.5,
}
"""Leg name -> how much its best row counts against the keyword leg's best (0 switches it off);
revetly.toml [ranking] overrides it like a signal weight."""

RECENCY_FLOOR = 0.75
"""However old a row is, recency never weighs it below this: it orders near-ties, it never
buries an old row the words point at."""

PROVENANCE_TABLE: dict[str, float] = {
    "source-of-record": 1.0,
    "mirror": 0.8,
    "ai-derived": 0.7,
}
"""How much a row of each provenance is worth against a source-of-record row."""


class Candidate(NamedTuple):
    """What the signals read about one gathered row (a tuple: fifty are made per search)."""

    artifact_id: str
    artifact_type: str
    family: str | None
    when: str | None
    provenance: str
    link_count: int
    superseded: bool


def weights(overrides: Mapping[str, float]) -> dict[str, float]:
    """The defaults with the instance's [ranking] overrides applied."""
    merged = dict(DEFAULT_WEIGHTS)
    merged.update(overrides)
    return merged


def leg_share(overrides: Mapping[str, float], leg: str) -> float:
    """The leg's share, the instance's [ranking] value winning over LEG_SHARES."""
    return float(overrides.get(leg, LEG_SHARES[leg]))


def exact_id_signal(c: Candidate, query_ids: set[str], backlog_families: set[str], w: float) -> float:
    """× weight when the query names this row's id and its family is a backlog family."""
    if c.artifact_id in query_ids and c.family in backlog_families:
        return w
    return 1.0


def _date(value: str | None) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def recency_signal(c: Candidate, freshest: dt.date | None, half_life_days: float) -> float:
    """Halves per half-life behind the freshest gathered row, never below RECENCY_FLOOR;
    binding notes never age; a half-life of 0 switches it off."""
    if c.artifact_type in STATEMENT_NOTE_TYPES or half_life_days <= 0:
        return 1.0
    when = _date(c.when)
    if when is None or freshest is None:
        return 1.0
    age = max(0, (freshest - when).days)
    return max(RECENCY_FLOOR, float(0.5 ** (age / half_life_days)))


def provenance_signal(c: Candidate, w: float) -> float:
    """A mirror or derived row weighs less than the source of record, by the table."""
    return float(PROVENANCE_TABLE.get(c.provenance, 1.0) ** w)


def link_count_signal(c: Candidate, w: float) -> float:
    """Favours a row other records link to over one none does, flattening as the count grows;
    the count is of links toward the row only (`counts_toward`), never the row's own."""
    return 1.0 + w * math.log1p(c.link_count)


def reads_links(w: Mapping[str, float]) -> bool:
    """Whether a search needs the link counts at all: at weight 0 the signal is 1 for every row."""
    return w["link-count"] != 0


RANK_LINK_METHODS = ("declared",)
"""The link methods whose links the link-count signal counts (`lifts_rank`)."""


def lifts_rank(method: str) -> bool:
    """An inferred edge never lifts a rank: only a link a source declared counts toward a row's
    link count; an inferred one, in CONTEXT or in the inferred projection, never does."""
    return method in RANK_LINK_METHODS


TREE_RELATIONS = frozenset({"parent"})
"""Relations that place a row in a tree: structure, which link-count never reads as evidence."""


def counts_toward(relation: str) -> bool:
    """Whether a declared link counts for the row it points at: another record's dependency or
    reference does, the tree does not (a parent is not more relevant for having many children)."""
    return relation not in TREE_RELATIONS


def kind_signal(c: Candidate, w: float) -> float:
    """A commit counts for `w` of a note at the same place."""
    return w if c.artifact_type == "commit" else 1.0


def superseded_signal(c: Candidate, w: float) -> float:
    """A row a later record superseded is demoted by `w`, never removed."""
    return w if c.superseded else 1.0


def freshest_date(candidates: list[Candidate]) -> dt.date | None:
    """The newest source date among the gathered rows: what recency is measured against."""
    dates = [d for d in (_date(c.when) for c in candidates) if d is not None]
    return max(dates) if dates else None


def weigh(
    c: Candidate, fused: float, *, w: Mapping[str, float], query_ids: set[str],
    backlog_families: set[str], freshest: dt.date | None,
) -> float:
    """The fused score multiplied by all six signals."""
    return (
        fused
        * exact_id_signal(c, query_ids, backlog_families, w["exact-id"])
        * recency_signal(c, freshest, w["recency"])
        * provenance_signal(c, w["provenance"])
        * link_count_signal(c, w["link-count"])
        * kind_signal(c, w["kind"])
        * superseded_signal(c, w["superseded"])
    )
