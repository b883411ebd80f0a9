"""Fusion of the keyword legs (by relative BM25 score) and the reorder rules applied after the signals."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

REVISES_ORDER = False
"""On: a story sinks below a gathered, later note declaring it revises the story."""
CRITERION_WORDS_RULE = True
"""On: a later note naming a work item and speaking of its criteria is served just ahead of it."""
PULL_REVISING = False
"""On: a revised story near the top pulls its newest live revising note in ahead of it."""
PULL_REVISING_TOP = 5
PULL_REVISING_MAX = 2
RANK_OFFSET = 10
"""A row at rank r on a leg contributes 1 / (RANK_OFFSET + r) (fusion by rank, `fuse`)."""
FEEDBACK_SHARE = 0.5
"""The feedback leg counts half of the keyword leg (by rank in `fuse`; search reads its share
from [ranking] feedback)."""
REORDER_REACH = 10
"""A reorder rule moves a note only when it stands in the first REORDER_REACH rows (never `limit`)."""

_CRITERIA_WORDS = re.compile(r"\b(?:ACs?\s*\d+|ACs\b|AC\d+|criterion|criteria|acceptance)", re.I)


def relative_scores(hits: Sequence[tuple[str, float]], share: float = 1.0) -> list[tuple[str, float]]:
    """A leg's scores as fractions of its best row's, times the leg's share (best row = share)."""
    if not hits:
        return []
    top = max(score for _, score in hits)
    if top <= 0:
        return [(artifact_id, share) for artifact_id, _ in hits]
    return [(artifact_id, share * max(score, 0.0) / top) for artifact_id, score in hits]


def leg_score(rank: int, share: float = 1.0) -> float:
    """The reciprocal-rank contribution of a row at 1-based rank on one leg."""
    return share / (RANK_OFFSET + rank)


def fuse(legs: Sequence[tuple[Sequence[str], float]]) -> dict[str, tuple[float, frozenset[int]]]:
    """By rank: id -> (fused score, legs that reached it); a row stands at its better leg."""
    fused: dict[str, tuple[float, frozenset[int]]] = {}
    for leg_index, (ids, share) in enumerate(legs):
        for rank, artifact_id in enumerate(ids, start=1):
            score = leg_score(rank, share)
            prior_score, prior_legs = fused.get(artifact_id, (0.0, frozenset()))
            fused[artifact_id] = (max(score, prior_score), prior_legs | {leg_index})
    return fused


def fuse_scores(
    legs: Sequence[tuple[Sequence[tuple[str, float]], float]],
) -> dict[str, tuple[float, frozenset[int]]]:
    """id -> (fused score, legs that reached it): each leg's relative score times its share;
    a row stands at its better leg, never the sum."""
    fused: dict[str, tuple[float, frozenset[int]]] = {}
    for leg_index, (hits, share) in enumerate(legs):
        for artifact_id, score in relative_scores(hits, share):
            prior_score, prior_legs = fused.get(artifact_id, (0.0, frozenset()))
            fused[artifact_id] = (max(score, prior_score), prior_legs | {leg_index})
    return fused


def speaks_of_criteria(text: str) -> bool:
    """True when prose speaks of acceptance criteria (AC5, ACs 3, criterion, acceptance)."""
    return bool(_CRITERIA_WORDS.search(text))


class Row(NamedTuple):
    """What the reorder rules read about a ranked row (a tuple: one per gathered row)."""

    artifact_id: str
    artifact_type: str
    when: str
    body: str


def move_ahead(order: list[str], mover: str, anchor: str) -> None:
    """Put mover immediately ahead of anchor when it stands below it; the rows between move up."""
    i, j = order.index(mover), order.index(anchor)
    if i > j:
        order.pop(i)
        order.insert(j, mover)


def newer_decision_first(
    order: list[str], rows: Mapping[str, Row], names: Mapping[str, set[str]]
) -> None:
    """A decision note naming an older one by a stated edge is served just ahead of it."""
    gathered = set(order)
    for mover in list(order):
        a = rows[mover]
        if a.artifact_type != "decision":
            continue
        for anchor in sorted(names.get(mover, set()) & gathered):
            b = rows[anchor]
            if b.artifact_type == "decision" and a.when > b.when:
                move_ahead(order, mover, anchor)


def criteria_note_first(
    order: list[str], rows: Mapping[str, Row], names: Mapping[str, set[str]], limit: int
) -> None:
    """A later note naming a work item and speaking of its criteria is served just ahead of it."""
    if not CRITERION_WORDS_RULE:
        return
    gathered = set(order)
    for mover in list(order):
        a = rows[mover]
        if a.artifact_type in ("epic", "feature", "story", "task", "bug", "commit"):
            continue
        named = names.get(mover, set()) & gathered
        if not named or not speaks_of_criteria(a.body):  # the cheap test first
            continue
        for anchor in sorted(named):
            b = rows[anchor]
            if b.artifact_type not in ("epic", "feature", "story", "task", "bug"):
                continue
            if a.when > b.when and order.index(mover) < limit:
                move_ahead(order, mover, anchor)


def revising_note_first(
    order: list[str], rows: Mapping[str, Row], revises: Mapping[str, set[str]], limit: int
) -> None:
    """With REVISES_ORDER on: a gathered later note declaring it revises an item goes ahead of it."""
    if not REVISES_ORDER:
        return
    gathered = set(order)
    for mover in list(order):
        a = rows[mover]
        for anchor in sorted(revises.get(mover, set()) & gathered):
            if a.when > rows[anchor].when and order.index(mover) < limit:
                move_ahead(order, mover, anchor)


def pull_revising(
    order: list[str], newest_reviser: Mapping[str, str]
) -> list[tuple[str, str]]:
    """With PULL_REVISING on: a revised item near the top pulls its newest reviser in ahead of it.

    ``newest_reviser`` maps an item to its newest live revising note. Only notes the read did
    not gather are pulled, at most PULL_REVISING_MAX per read; returns (note, item) pairs pulled.
    """
    if not PULL_REVISING:
        return []
    pulled: list[tuple[str, str]] = []
    for item in list(order[:PULL_REVISING_TOP]):
        note = newest_reviser.get(item)
        if note is None or note in order or len(pulled) >= PULL_REVISING_MAX:
            continue
        order.insert(order.index(item), note)
        pulled.append((note, item))
    return pulled
