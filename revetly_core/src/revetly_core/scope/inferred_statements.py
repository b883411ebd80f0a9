"""get_scope(question='binding') on a full instance: the statements a model inferred about the
scope's members, served below every stated one, and the entity types their extraction found."""

from __future__ import annotations

from typing import Any

from revetly_core.model import Artifact
from revetly_core.reads.inferred import (
    INFERRED_METHOD,
    names_an_endpoint,
    retired_last,
    retired_sources,
    sources_retired,
)
from revetly_core.scope.members import Members
from revetly_core.store.inferred import InferredStore
from revetly_core.store.protocols import Store

MEMBERS_READ = 500
"""Members whose inferred half one read looks up (nearest the root first): a bounded read."""


def inferred_statements(inferred: InferredStore, members: Members, arts: dict[str, Artifact]
                        ) -> tuple[list[dict[str, Any]], list[str]]:
    """Each member's inferred links as statement rows, by where they bear (the scope's own, then
    beneath, then above, nearest first), and the sorted entity types extracted from them."""
    order = sorted(members.by_id, key=lambda m: (members.position_rank(m), members.credit_key(m)))
    rows: list[dict[str, Any]] = []
    types: set[str] = set()
    for member in order[:MEMBERS_READ]:
        half = inferred.of_artifact(member)
        if half is None:
            continue
        types.update(half.entity_types)
        for link in half.links:
            a = arts.get(member)
            row: dict[str, Any] = {"artifact_id": member, "title": a.title if a else None,
                                   "artifact_type": a.type if a else None,
                                   "status": a.status if a else None, "statement": link.fact,
                                   "bears_on": member, "method": INFERRED_METHOD,
                                   "relation": link.relation, "other": link.target_id or link.name,
                                   "position": members.by_id[member].position}
            if not names_an_endpoint(link, member):
                row["unnamed_endpoints"] = True
            rows.append(row)
    return rows, sorted(types)


def demote_retired_statements(store: Store, inferred: InferredStore,
                              rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The statements read only out of retired bodies follow the live ones, each marked
    sources_retired; returns the rows and how many are retired."""
    sources = inferred.fact_sources([r["statement"] for r in rows])
    retired = retired_sources(store, {i for ids in sources.values() for i in ids})
    flags = [sources_retired(sources.get(r["statement"], {r["artifact_id"]}), retired)
             for r in rows]
    for row, gone in zip(rows, flags, strict=True):
        if gone:
            row["sources_retired"] = True
    return retired_last(rows, flags), sum(flags)


def add_inferred_statements(out: dict[str, Any], inferred: InferredStore, members: Members,
                            arts: dict[str, Artifact], limit: int, store: Store) -> None:
    """Append the inferred rows after the stated ones, in the room `limit` leaves, so nothing
    stated is ever displaced; deterministic_statements keeps counting the stated ones; the
    retired ones follow the live ones, counted under inferred_retired."""
    rows, types = inferred_statements(inferred, members, arts)
    rows, retired = demote_retired_statements(store, inferred, rows)
    if retired:
        out["inferred_retired"] = {"count": retired}
    room = max(0, limit - len(out["statements"]))
    out["entity_types_present"] = types
    out["statements"].extend(rows[:room])
    out["inferred_statements"] = {"served": min(room, len(rows)), "total": len(rows),
                                  "method": INFERRED_METHOD}
