"""The walk that gathers binding statements from a scope's members, and the credit rule.

A statement is a node a source typed as one of DOCUMENT_TYPES (decision, constraint,
assumption). It is reached only from a member itself, or through one document the member
touches (a node of kind doc or delivery-record that is not itself a member). A sibling work
item, a commit, or a revision (``revises``, unless BINDING_SERVES_REVISING) is never a step.
Each statement is credited to one member: the nearest the scope root, then the lower id.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from revetly_core.model import STATEMENT_NOTE_TYPES
from revetly_core.scope import binding_order
from revetly_core.scope.members import Members, is_live

DOCUMENT_TYPES = STATEMENT_NOTE_TYPES
"""gathered_from.document_types: the types a statement is gathered by."""
ENTITY_TYPES: tuple[str, ...] = ()
"""gathered_from.entity_types: extraction shelves; a lite instance extracts none."""
DOCUMENT_KINDS = ("doc", "delivery-record")
"""A node of one of these kinds is a document a member may reach a statement through."""
NEVER_A_STEP = ("parent", "implemented_by")
"""Relations that are never the edge to a statement or a document."""


@dataclass(frozen=True)
class Reach:
    """One way a member reached a statement: the method of the last edge, and the document."""

    member: str
    method: str
    via: str | None


@dataclass
class Gathered:
    """A statement and every reach to it."""

    artifact_id: str
    reaches: list[Reach] = field(default_factory=list)


def is_statement(graph: Any, node: str) -> bool:
    """A live node a source typed as a decision, constraint or assumption."""
    return is_live(graph, node) and graph.nodes[node].get("type") in DOCUMENT_TYPES


def is_document(graph: Any, node: str, members: Members) -> bool:
    """A live doc or delivery-record node that is not a member of the scope."""
    return (node not in members and is_live(graph, node)
            and graph.nodes[node].get("kind") in DOCUMENT_KINDS)


def edge_is_step(relation: str) -> bool:
    """Whether the walk may cross an edge of this relation at all."""
    if relation in NEVER_A_STEP:
        return False
    return relation != "revises" or binding_order.BINDING_SERVES_REVISING


def neighbours(graph: Any, node: str) -> Iterator[tuple[str, str]]:
    """(far end, method) of every stated edge touching the node, in either direction."""
    for _, dst, data in graph.out_edges(node, data=True):
        if edge_is_step(data["relation"]):
            yield dst, binding_order.method_of(data["relation"], data["method"])
    for src, _, data in graph.in_edges(node, data=True):
        if edge_is_step(data["relation"]):
            yield src, binding_order.method_of(data["relation"], data["method"])


def gather_statements(graph: Any, members: Members) -> dict[str, Gathered]:
    """Every statement the members reach directly or through one document they touch."""
    found: dict[str, Gathered] = {}

    def add(statement: str, reach: Reach) -> None:
        entry = found.setdefault(statement, Gathered(statement))
        if reach not in entry.reaches:
            entry.reaches.append(reach)

    for member in sorted(members.by_id):
        if is_statement(graph, member):  # a member that is itself a statement states it
            add(member, Reach(member, "states", None))
        for far, method in neighbours(graph, member):
            if far in members:
                continue  # a member is never the step, nor a statement reached from another
            if is_statement(graph, far):
                add(far, Reach(member, method, None))
            if is_document(graph, far, members):
                for beyond, beyond_method in neighbours(graph, far):
                    if beyond != member and beyond not in members and is_statement(graph, beyond):
                        add(beyond, Reach(member, beyond_method, far))
    return found


def best_reach(entry: Gathered, members: Members) -> Reach:
    """The reach credit goes to: nearest member, lower id; then a direct reach before one
    through a document, the stronger method, and the lower document id."""
    return min(entry.reaches, key=lambda r: (members.credit_key(r.member), r.via is not None,
                                             binding_order.strength(r.method), r.via or ""))


def also_bears_on(entry: Gathered, credited: str, members: Members) -> list[str]:
    """The other members a separate edge reached the statement through, in credit order."""
    others = {r.member for r in entry.reaches if r.member != credited}
    return sorted(others, key=members.credit_key)
