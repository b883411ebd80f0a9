"""get_scope(question='binding'): the statements that bear on a scope, gathered and ranked.

It gathers and ranks; it never judges. An empty statements list means nothing was gathered,
never that nothing binds the scope.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from revetly_core.model import Artifact
from revetly_core.reads.marks import revised_by
from revetly_core.scope import binding_order
from revetly_core.scope.binding_order import Ranked
from revetly_core.scope.gather import (
    DOCUMENT_TYPES,
    ENTITY_TYPES,
    also_bears_on,
    best_reach,
    gather_statements,
)
from revetly_core.scope.inferred_statements import add_inferred_statements
from revetly_core.scope.members import Members
from revetly_core.scope.topic import topic_share_of
from revetly_core.store.inferred import InferredStore
from revetly_core.store.protocols import Store

LITE_ABSENT: dict[str, Any] = {"absent": True, "reason": "lite"}
EMPTY_NOTE = ("nothing was gathered for this scope; that is not a statement that nothing "
              "binds it")
ANCESTORS_NOTE = ("what the scope hangs under keeps a few statements each; read the ancestor "
                  "itself with get_scope(question='binding', artifact_id=...) to see them all")


def artifacts_by_id(store: Store, ids: list[str]) -> dict[str, Artifact]:
    """The held artifacts among ids, in id order."""
    return store.held_artifacts(ids)


def statement_texts(store: Store, ids: list[str]) -> dict[str, str]:
    """artifact id -> the statement the read pass extracted from it."""
    return store.statement_texts(ids)


def superseders(graph: Any, node: str) -> list[str]:
    """Live notes whose frontmatter declares they supersede this one, sorted."""
    return sorted(
        src for src, _, data in graph.in_edges(node, data=True)
        if data.get("relation") == "supersedes" and not graph.nodes[src].get("deleted")
        and "kind" in graph.nodes[src]
    )


def gathered_from() -> dict[str, Any]:
    return {"document_types": list(DOCUMENT_TYPES), "entity_types": list(ENTITY_TYPES)}


def revised_marks(store: Store, graph: Any, members: Members,
                  arts: dict[str, Artifact]) -> list[dict[str, Any]]:
    """scope.revised: each member a live note declares it revises, nearest the scope first."""
    marked: list[dict[str, Any]] = []
    for mid in sorted(members.by_id, key=members.credit_key):
        if not any(d.get("relation") == "revises" for _, _, d in graph.in_edges(mid, data=True)):
            continue
        a = arts.get(mid) or store.get(mid)
        if a is None or a.kind != "work-item":
            continue
        entries = revised_by(store, a)
        if entries:
            marked.append({"artifact_id": mid, "revised_by": entries})
    return marked


@dataclass
class Binding:
    """The gathered, ordered statement rows and what the order left out."""

    rows: list[dict[str, Any]]
    ancestors_dropped: dict[str, int]
    revised: list[dict[str, Any]]
    total: int


def bind(
    store: Store, graph: Any, members: Members, *, words: list[str] | None = None,
    topic_matched: frozenset[str] = frozenset(), projects: tuple[str, ...] | None = None,
) -> Binding:
    """Gather, credit and order every statement the members reach; with `projects`, only the
    statements held by `projects` (the one asked and what it imports)."""
    found = gather_statements(graph, members)
    ids = sorted(found)
    arts = artifacts_by_id(store, ids + sorted(members.by_id))
    texts = statement_texts(store, ids)
    ranked: list[Ranked] = []
    for sid in ids:
        a = arts.get(sid)
        if a is None or (projects is not None and a.project not in projects):
            continue
        entry = found[sid]
        reach = best_reach(entry, members)
        method = "topic-match" if sid in topic_matched else reach.method
        text = texts.get(sid, a.title)
        sup = superseders(graph, sid)
        row: dict[str, Any] = {
            "artifact_id": sid,
            "title": a.title,
            "artifact_type": a.type,
            "status": a.status,
            "statement": text,
            "bears_on": reach.member,
        }
        also = also_bears_on(entry, reach.member, members)
        if also:
            row["also_bears_on"] = also
        row["method"] = method
        if reach.via:
            row["via"] = reach.via
        row["position"] = members.by_id[reach.member].position
        row["stated_at"] = a.created_at
        row["source_path"] = a.source_path
        row["source_uri"] = a.source_uri
        if sup:
            row["superseded_by"] = sup
        share = topic_share_of(f"{a.title} {text}", words) if words else 0.0
        ranked.append(Ranked(sid, method, members.position_rank(reach.member),
                             a.created_at or "", share, bool(sup), reach.member,
                             members.by_id[reach.member].position == "above", row))
    ordered = binding_order.order_statements(ranked)
    kept, dropped = binding_order.summarise_ancestors(ordered)
    rows = [r.extra for r in kept]
    return Binding(rows, dropped, revised_marks(store, graph, members, arts), len(ranked))


def member_rows(store: Store, members: Members, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The members a rendering needs: roots, ancestors, and each member a statement bears on,
    with the chain of declared parents between it and a root."""
    shown: set[str] = set(members.roots)
    shown.update(m for m, v in members.by_id.items() if v.position == "above")
    for row in rows:
        for named in [row["bears_on"], *row.get("also_bears_on", [])]:
            mid: str | None = named
            while mid is not None and mid in members and mid not in shown:
                shown.add(mid)
                mid = members.by_id[mid].parent
    arts = artifacts_by_id(store, sorted(shown))
    out = []
    for mid in sorted(shown, key=members.credit_key):
        m = members.by_id[mid]
        a = arts.get(mid)
        out.append({
            "artifact_id": mid,
            "title": a.title if a else None,
            "artifact_type": a.type if a else None,
            "status": a.status if a else None,
            "parent": m.parent if m.parent in members else None,
            "position": m.position,
            "distance": m.distance,
        })
    return out


def statements_block(store: Store, members: Members, binding: Binding, limit: int,
                     scope_block: dict[str, Any], inferred: InferredStore | None = None
                     ) -> dict[str, Any]:
    """The binding payload's body: scope, statements (capped at limit) and their reports; on a
    full instance (`inferred`) the inferred statements follow the stated ones."""
    rows = binding.rows[:limit]
    scope_block["member_count"] = len(members.by_id)
    scope_block["members"] = member_rows(store, members, rows)
    if binding.revised:
        scope_block["revised"] = binding.revised
    out: dict[str, Any] = {
        "scope": scope_block,
        "gathered_from": gathered_from(),
        "entity_types_present": dict(LITE_ABSENT),
        "statements": rows,
        "deterministic_statements": len(rows),
        "inferred_statements": dict(LITE_ABSENT),
    }
    if inferred is not None:
        add_inferred_statements(out, inferred, members,
                                artifacts_by_id(store, sorted(members.by_id)), limit, store)
    if binding.ancestors_dropped:
        out["ancestors_summarised"] = {
            "count": sum(binding.ancestors_dropped.values()),
            "by_ancestor": binding.ancestors_dropped,
            "note": ANCESTORS_NOTE,
        }
    if len(binding.rows) > limit:
        out["truncated"] = {"reason": "limit", "total": len(binding.rows), "listed": limit,
                            "note": "narrow the scope or raise limit to read the rest"}
    if not rows:
        out["note"] = EMPTY_NOTE
    if members.capped:
        scope_block["members_capped"] = True
    return out

