"""How binding statements are ordered, and which edges the walk may reach them over."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

BINDING_SERVES_REVISING = False
"""On: a note declaring it revises a member is reached over that edge and served (method
revises). Off (until measured): the revising note is named only by the scope.revised mark."""

METHOD_STRENGTH: dict[str, int] = {
    "states": 0,
    "supersedes": 1,
    "revises": 2,
    "cites": 3,
    "explicit-ref": 3,
    "topic-match": 3,
    "references": 4,
    "related": 4,
    "delivers": 5,
    "title-mention": 6,
}
"""Method -> strength rank (lower is the stronger claim). explicit-ref ranks with cites."""
WEAKEST = max(METHOD_STRENGTH.values()) + 1
ANCESTOR_KEEP = 3
"""What the scope hangs under keeps this many statements per ancestor; the rest are counted."""


def method_of(relation: str, method: str) -> str:
    """The method a statement row names for the edge it was reached over."""
    if relation in ("supersedes", "revises", "cites", "delivers"):
        return relation
    if method in ("explicit-ref", "title-mention"):
        return method
    return relation


def strength(method: str) -> int:
    """The rank of a method: the stronger claim first."""
    return METHOD_STRENGTH.get(method, WEAKEST)


@dataclass
class Ranked:
    """What the order reads about one gathered statement."""

    artifact_id: str
    method: str
    position_rank: int
    stated_at: str
    topic_share: float = 0.0
    superseded: bool = False
    bears_on: str = ""
    above: bool = False
    extra: dict[str, object] = field(default_factory=dict)


def order_statements(rows: Sequence[Ranked]) -> list[Ranked]:
    """Live before superseded; then topic-word share, method strength, own/beneath/above,
    newest first, and the id last so two reads of one graph give one order."""
    by_id = sorted(rows, key=lambda r: r.artifact_id)
    newest = sorted(by_id, key=lambda r: r.stated_at, reverse=True)
    return sorted(newest, key=lambda r: (r.superseded, -round(r.topic_share, 6),
                                         strength(r.method), r.position_rank))


def summarise_ancestors(
    rows: list[Ranked], keep: int = ANCESTOR_KEEP
) -> tuple[list[Ranked], dict[str, int]]:
    """Keep `keep` statements per ancestor a statement bears on; count the rest per ancestor."""
    kept: list[Ranked] = []
    seen: dict[str, int] = {}
    dropped: dict[str, int] = {}
    for r in rows:
        if r.above:
            seen[r.bears_on] = seen.get(r.bears_on, 0) + 1
            if seen[r.bears_on] > keep:
                dropped[r.bears_on] = dropped.get(r.bears_on, 0) + 1
                continue
        kept.append(r)
    return kept, dict(sorted(dropped.items()))

