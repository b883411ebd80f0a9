"""get_scope(question='deltas'): what changed over a window, on the clock the caller picks.

clock='source' places each change where its source dates it (git history of the instance
files); an artifact whose source dates nothing is undated. clock='ingest' places it where this
instance learned of it (the time the read pass last stored it, or found it gone). Every served
time names its clock.
"""

from __future__ import annotations

from typing import Any

from revetly_core.reads.budget import Cut
from revetly_core.reads.envelope import ProjectScope
from revetly_core.scope.arguments import Window
from revetly_core.scope.context import ScopeContext
from revetly_core.scope.members import walk_members

DELTAS_CUTS = [Cut(("undated", "ids"), "ids_truncated"), Cut(("changed",), "truncated_changed")]
UNDATED_LISTED = 20


def _in_scope(ctx: ScopeContext, scope: ProjectScope, root: str | None) -> dict[str, tuple[Any, ...]]:
    """id -> (title, type, status, source, source_path, created_at, source_updated_at,
    ingested_at, deleted, deleted_at, deleted_clock) of the non-commit artifacts in scope."""
    rows = ctx.store.conn.execute(
        "SELECT id, title, type, status, source, source_path, created_at, source_updated_at, "
        "ingested_at, deleted, deleted_at, deleted_clock, project FROM artifacts "
        "WHERE kind != 'commit' ORDER BY id")
    if root is not None:
        members = walk_members(ctx.graph, [root])
        keep = {m for m, v in members.by_id.items() if v.position in ("own", "beneath")}
        return {r[0]: tuple(r[1:12]) for r in rows if r[0] in keep}
    return {r[0]: tuple(r[1:12]) for r in rows if r[12] == scope.name}


def source_changes(ctx: ScopeContext, arts: dict[str, tuple[Any, ...]],
                   window: Window) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """Changes dated by the sources' own history, and the artifacts nothing dates."""
    by_path = {(v[3], v[4]): k for k, v in arts.items() if v[4]}
    changes: dict[str, list[dict[str, Any]]] = {}
    dated: set[str] = set()
    for source, path, revision, at, change in ctx.store.conn.execute(
            "SELECT source, path, revision, at, change FROM history ORDER BY at, revision"):
        aid = by_path.get((source, path))
        if aid is None:
            continue
        dated.add(aid)
        if window.holds(at) or not window.bounded:
            changes.setdefault(aid, []).append(
                {"at": at, "clock": "source", "change": change, "revision": revision})
    undated: list[str] = []
    for aid, v in arts.items():
        if aid in dated:
            continue
        if v[5] is None and v[6] is None:
            undated.append(aid)
            continue
        for at, change in ((v[5], "added"), (v[6], "edited")):
            if change == "edited" and at == v[5]:
                continue
            if at and (window.holds(at) or not window.bounded):
                changes.setdefault(aid, []).append({"at": at, "clock": "source",
                                                    "change": change})
    return changes, sorted(undated)


def ingest_changes(arts: dict[str, tuple[Any, ...]],
                   window: Window) -> dict[str, list[dict[str, Any]]]:
    """Changes placed on when this instance learned of them."""
    changes: dict[str, list[dict[str, Any]]] = {}
    for aid, v in arts.items():
        ingested, deleted, deleted_at, deleted_clock = v[7], v[8], v[9], v[10]
        if deleted and deleted_clock != "source-declared" and deleted_at and (
                window.holds(deleted_at) or not window.bounded):
            changes.setdefault(aid, []).append(
                {"at": deleted_at, "clock": "ingest", "change": "found-deleted"})
        elif ingested and (window.holds(ingested) or not window.bounded):
            changes.setdefault(aid, []).append(
                {"at": ingested, "clock": "ingest", "change": "read"})
    return changes


def commit_counts(ctx: ScopeContext, scope: ProjectScope, window: Window,
                  clock: str) -> dict[str, int]:
    """Commits per repository source whose time on the clock falls in the window."""
    column = "created_at" if clock == "source" else "ingested_at"
    counts: dict[str, int] = {}
    for source, at in ctx.store.conn.execute(
            f"SELECT source, {column} FROM artifacts WHERE kind='commit' AND deleted=0 "
            f"AND project IN ({','.join('?' * len(scope.reach))})", scope.reach):
        if not window.bounded or window.holds(at):
            counts[source] = counts.get(source, 0) + 1
    return dict(sorted(counts.items()))


def external_references(ctx: ScopeContext, arts: dict[str, tuple[Any, ...]]) -> int:
    """Ids the scope's artifacts name that were never ingested."""
    far = set()
    for src, dst in ctx.store.conn.execute(
            "SELECT l.src, l.dst FROM links l LEFT JOIN artifacts a ON a.id = l.dst "
            "WHERE l.invalid_at IS NULL AND a.id IS NULL AND l.relation != 'implemented_by'"):
        if src in arts:
            far.add(dst)
    return len(far)


def deltas(ctx: ScopeContext, scope: ProjectScope, root: str | None, window: Window,
           clock: str, limit: int) -> dict[str, Any]:
    """What changed in the window, per artifact, newest change first."""
    arts = _in_scope(ctx, scope, root)
    undated: list[str] = []
    if clock == "source":
        changes, undated = source_changes(ctx, arts, window)
    else:
        changes = ingest_changes(arts, window)
    rows = []
    for aid, entries in changes.items():
        v = arts[aid]
        entries.sort(key=lambda e: (e["at"], e.get("revision", "")), reverse=True)
        row: dict[str, Any] = {"artifact_id": aid, "title": v[0], "artifact_type": v[1],
                               "status": v[2], "last_change_at": entries[0]["at"],
                               "clock": clock, "changes": entries}
        if v[8]:
            row["deleted"] = True
        rows.append(row)
    rows.sort(key=lambda r: (r["last_change_at"], r["artifact_id"]), reverse=True)
    by_change: dict[str, int] = {}
    for r in rows:
        for e in r["changes"]:
            by_change[e["change"]] = by_change.get(e["change"], 0) + 1
    payload: dict[str, Any] = {
        "question": "deltas",
        "clock": clock,
        "scope": {"kind": "artifact", "artifact_id": root} if root else {"kind": "project"},
        "window": window.payload(clock),
        "provenance": {"inferred": False},
        "counts": {"artifacts": len(rows), "changes": sum(by_change.values()),
                   "by_change": dict(sorted(by_change.items()))},
        "changed": rows[:limit],
        "commits": {"clock": clock, "by_source": commit_counts(ctx, scope, window, clock)},
        "edits": {"bodies_read": False},
        "links": {"counted": False},
        "external_references": {"count": external_references(ctx, arts)},
    }
    if len(rows) > limit:
        payload["truncated_changed"] = {
            "reason": "limit", "total": len(rows), "listed": limit,
            "note": "narrow the window or the scope, or raise limit"}
    if clock == "source":
        payload["undated"] = {"count": len(undated), "ids": undated[:UNDATED_LISTED]}
    return payload
