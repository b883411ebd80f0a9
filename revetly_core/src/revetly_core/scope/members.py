"""The members of a scope: the roots, the branch beneath them and what they hang under.

Walked over the declared ``parent`` links of the graph only. Each member keeps its distance
from the nearest root (the length of the declared path, whichever direction it runs) and its
position: ``own`` for a root, ``beneath`` for the branch below, ``above`` for an ancestor.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

POSITIONS = ("own", "beneath", "above")
MAX_MEMBERS = 20_000
"""A walk stops adding members past this many (a guard against a runaway declared graph)."""


@dataclass(frozen=True)
class Member:
    """One member of a scope: how far from the nearest root, and where it stands."""

    artifact_id: str
    distance: int
    position: str
    parent: str | None


@dataclass
class Members:
    """The scope's members by id, plus the roots in the order they were named."""

    roots: list[str]
    by_id: dict[str, Member] = field(default_factory=dict)
    capped: bool = False

    def __contains__(self, artifact_id: object) -> bool:
        return artifact_id in self.by_id

    def credit_key(self, artifact_id: str) -> tuple[int, str]:
        """The order credit is decided by: nearest the scope root, then the lower id."""
        return (self.by_id[artifact_id].distance, artifact_id)

    def position_rank(self, artifact_id: str) -> int:
        return POSITIONS.index(self.by_id[artifact_id].position)


def declared_parent(graph: Any, node: str) -> str | None:
    """The far end of the node's live declared parent link (the lowest id when several)."""
    parents = sorted(
        dst for _, dst, data in graph.out_edges(node, data=True)
        if data.get("relation") == "parent" and data.get("method") == "declared"
    )
    return parents[0] if parents else None


def declared_children(graph: Any, node: str) -> list[str]:
    """The nodes whose live declared parent link points at this one, by id."""
    return sorted(
        src for src, _, data in graph.in_edges(node, data=True)
        if data.get("relation") == "parent" and data.get("method") == "declared"
    )


def is_live(graph: Any, node: str) -> bool:
    """Held by CONTEXT and not deleted."""
    attrs = graph.nodes.get(node)
    return bool(attrs) and "kind" in attrs and not attrs.get("deleted")


def walk_members(graph: Any, roots: Iterable[str], depth: int | None = None) -> Members:
    """Roots, everything beneath them (at most `depth` levels when given) and everything they
    hang under, with distances."""
    members = Members(roots=[r for r in roots if r in graph])
    queue: deque[tuple[str, int, str]] = deque()
    for root in members.roots:
        members.by_id[root] = Member(root, 0, "own", declared_parent(graph, root))
        queue.append((root, 0, "own"))
    while queue:  # breadth first, so a member is reached first at its shortest distance
        node, dist, pos = queue.popleft()
        if pos in ("own", "beneath") and (depth is None or dist < depth):
            for child in declared_children(graph, node):
                if child in members.by_id or not is_live(graph, child):
                    continue
                if len(members.by_id) >= MAX_MEMBERS:
                    members.capped = True
                    return members
                members.by_id[child] = Member(child, dist + 1, "beneath", node)
                queue.append((child, dist + 1, "beneath"))
        if pos in ("own", "above"):
            up = declared_parent(graph, node)
            if up is not None and up not in members.by_id and is_live(graph, up):
                members.by_id[up] = Member(up, dist + 1, "above", declared_parent(graph, up))
                queue.append((up, dist + 1, "above"))
    return members
