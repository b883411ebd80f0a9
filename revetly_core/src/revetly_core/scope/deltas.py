"""get_scope(question='deltas'): what changed over a window, on the clock the caller picks.

clock='source' places each change where its source dates it (git history of the instance
files); an artifact whose source dates nothing is undated. clock='ingest' places it where this
instance learned of it (the time the read pass last stored it, or found it gone). Every served
time names its clock.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from revetly_core.answers.scope import Change, ChangedArtifact, DeltasAnswer
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
    if root is not None:
        members = walk_members(ctx.graph, [root])
        keep = sorted(m for m, v in members.by_id.items() if v.position in ("own", "beneath"))
        return dict(ctx.store.dated_rows_of(keep))
    rows: dict[str, tuple[Any, ...]] = {}
    for name in scope.answering:
        rows.update(ctx.store.dated_rows_in(name))
    return rows


def prefilter_bounds(window: Window) -> tuple[str | None, str | None]:
    """A coarse prefilter on ISO times (since, before): a day of slack on each side for zones."""
    since = None if window.since is None else (window.since - dt.timedelta(days=1)).date().isoformat()
    before = None if window.until is None else (window.until + dt.timedelta(days=2)).date().isoformat()
    return since, before


def _inside(window: Window, when: str | None) -> bool:
    return not window.bounded or window.holds(when)


def source_changes(ctx: ScopeContext, arts: dict[str, tuple[Any, ...]],
                   window: Window) -> tuple[dict[str, list[Change]], list[str]]:
    """Changes dated by the sources' own history, and the artifacts nothing dates."""
    by_path = {(v[3], v[4]): k for k, v in arts.items() if v[4]}
    changes: dict[str, list[Change]] = {}
    dated = {by_path[(s, p)] for s, p in ctx.store.history_paths() if (s, p) in by_path}
    for source, path, revision, at, change in ctx.store.history_between(*prefilter_bounds(window)):
        aid = by_path.get((source, path))
        if aid is not None and _inside(window, at):
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
            if at and _inside(window, at):
                changes.setdefault(aid, []).append({"at": at, "clock": "source",
                                                    "change": change})
    return changes, sorted(undated)


def ingest_changes(arts: dict[str, tuple[Any, ...]],
                   window: Window) -> dict[str, list[Change]]:
    """Changes placed on when this instance learned of them."""
    changes: dict[str, list[Change]] = {}
    for aid, v in arts.items():
        ingested, deleted, deleted_at, deleted_clock = v[7], v[8], v[9], v[10]
        if deleted and deleted_clock != "source-declared" and deleted_at and _inside(
                window, deleted_at):
            changes.setdefault(aid, []).append(
                {"at": deleted_at, "clock": "ingest", "change": "found-deleted"})
        elif ingested and _inside(window, ingested):
            changes.setdefault(aid, []).append(
                {"at": ingested, "clock": "ingest", "change": "read"})
    return changes


def commit_counts(ctx: ScopeContext, scope: ProjectScope, window: Window,
                  clock: str) -> dict[str, int]:
    """Commits per repository source whose time on the clock falls in the window."""
    counts: dict[str, int] = {}
    for source, at in ctx.store.commit_times(scope.reach, clock):
        if _inside(window, at):
            counts[source] = counts.get(source, 0) + 1
    return dict(sorted(counts.items()))


def external_references(ctx: ScopeContext, arts: dict[str, tuple[Any, ...]]) -> int:
    """Ids the scope's artifacts name that were never ingested."""
    far = set()
    for src, dst in ctx.store.unheld_targets():
        if src in arts:
            far.add(dst)
    return len(far)


def deltas(ctx: ScopeContext, scope: ProjectScope, root: str | None, window: Window,
           clock: str, limit: int) -> DeltasAnswer:
    """What changed in the window, per artifact, newest change first."""
    arts = _in_scope(ctx, scope, root)
    undated: list[str] = []
    if clock == "source":
        changes, undated = source_changes(ctx, arts, window)
    else:
        changes = ingest_changes(arts, window)
    latest: list[tuple[str, str]] = []
    by_change: dict[str, int] = {}
    for aid, entries in changes.items():
        entries.sort(key=lambda e: (e["at"], e.get("revision", "")), reverse=True)
        latest.append((entries[0]["at"], aid))
        for e in entries:
            by_change[e["change"]] = by_change.get(e["change"], 0) + 1
    latest.sort(reverse=True)
    rows: list[ChangedArtifact] = []
    for at, aid in latest[:limit]:
        v = arts[aid]
        row: ChangedArtifact = {"artifact_id": aid, "title": v[0], "artifact_type": v[1],
                               "status": v[2], "last_change_at": at, "clock": clock,
                               "changes": changes[aid]}
        if v[8]:
            row["deleted"] = True
        rows.append(row)
    payload: DeltasAnswer = {
        "question": "deltas",
        "clock": clock,
        "scope": {"kind": "artifact", "artifact_id": root} if root else {"kind": "project"},
        "window": window.payload(clock),
        "provenance": {"inferred": False},
        "counts": {"artifacts": len(latest), "changes": sum(by_change.values()),
                   "by_change": dict(sorted(by_change.items()))},
        "changed": rows,
        "commits": {"clock": clock, "by_source": commit_counts(ctx, scope, window, clock)},
        "edits": {"bodies_read": False},
        "links": {"counted": False},
        "external_references": {"count": external_references(ctx, arts)},
    }
    if len(latest) > limit:
        payload["truncated_changed"] = {
            "reason": "limit", "total": len(latest), "listed": limit,
            "note": "narrow the window or the scope, or raise limit"}
    if clock == "source":
        payload["undated"] = {"count": len(undated), "ids": undated[:UNDATED_LISTED]}
    return payload
