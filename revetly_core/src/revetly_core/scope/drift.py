"""get_scope(question='drift'): per delivered item, what was asked against what shipped.

Everything served is stated: verdicts as whoever shipped gave them, criteria as the delivery
record quoted them (else the item's own list), the record-to-item link a declared delivers
edge, and the declared hierarchy. Nothing here is inferred.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from revetly_core.markdown.criteria import criteria_fingerprint
from revetly_core.model import Artifact
from revetly_core.reads.budget import Cut
from revetly_core.reads.envelope import ProjectScope
from revetly_core.scope.arguments import Window
from revetly_core.scope.context import ScopeContext
from revetly_core.scope.members import walk_members

DRIFT_CUTS = [
    Cut(("clean",), "clean_truncated"),
    Cut(("checked_in_source",), "checked_in_source_truncated"),
    Cut(("no_criteria_declared",), "no_criteria_declared_truncated"),
    Cut(("done_without_record",), "done_without_record_truncated"),
    Cut(("delivered",), "delivered_truncated"),
    Cut(("departures",), "truncated_departures"),
]
QUOTED_HEADING = re.compile(r"^#{1,6}\s+criteria\s+(?:at|as)\s+deliver", re.IGNORECASE)
_ITEM = re.compile(r"^\s{0,3}(?:[-*]|\d+[.)])\s+(.*)$")
_TRAILING_VERDICT = re.compile(r"\s*\((?:met|partial|not-met)(?:;[^)]*)?\)\s*$")
DEPARTING = ("partial", "not-met")
SHIPPED_TYPES = ("story", "task", "bug")
"""Types a delivery record is written for; a done epic or feature ships through its children."""


def quoted_criteria(record: Artifact) -> list[str] | None:
    """The criteria a delivery record quotes: its 'Criteria at delivery' list, or a
    frontmatter criteria list; None when the record quotes none."""
    declared = record.metadata.get("criteria")
    if isinstance(declared, list) and declared:
        return [str(c) for c in declared]
    lines = record.body.splitlines()
    for i, line in enumerate(lines):
        if QUOTED_HEADING.match(line):
            items = []
            for follow in lines[i + 1:]:
                if follow.startswith("#"):
                    break
                m = _ITEM.match(follow)
                if m:
                    items.append(_TRAILING_VERDICT.sub("", m.group(1)).strip())
            return items or None
    return None


@dataclass(frozen=True)
class Delivery:
    """One delivery record against one item, read as drift reads it."""

    record: Artifact
    item: Artifact


def verdict_rows(record: Artifact) -> dict[int, dict[str, Any]]:
    """criterion position -> the verdict the record states for it."""
    out: dict[int, dict[str, Any]] = {}
    for v in record.metadata.get("verdicts", []) or []:
        if isinstance(v, dict) and isinstance(v.get("criterion"), int):
            out.setdefault(v["criterion"], v)
    return out


def classify(d: Delivery) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The delivered row and its departures: clean, departures or no_criteria_declared."""
    quoted = quoted_criteria(d.record)
    criteria = quoted if quoted is not None else list(d.item.criteria)
    verdicts = verdict_rows(d.record)
    departures: list[dict[str, Any]] = []
    for pos, text in enumerate(criteria, start=1):
        v = verdicts.get(pos)
        if v is None or v.get("verdict") in DEPARTING:
            row: dict[str, Any] = {
                "artifact_id": d.item.id, "record": d.record.id, "criterion": pos,
                "text": text, "verdict": v.get("verdict") if v else "unruled",
                "criterion_declared": True,
            }
            if v and v.get("note"):
                row["note"] = v["note"]
            if quoted is not None and (pos > len(d.item.criteria) or criteria_fingerprint(
                    d.item.criteria[pos - 1]) != criteria_fingerprint(text)):
                row["reworded_since"] = True
            departures.append(row)
    for pos in sorted(p for p in verdicts if p > len(criteria)):
        v = verdicts[pos]
        if v.get("verdict") in DEPARTING or not criteria:
            row = {"artifact_id": d.item.id, "record": d.record.id, "criterion": pos,
                   "verdict": v.get("verdict"), "criterion_declared": False}
            if v.get("note"):
                row["note"] = v["note"]
            departures.append(row)
    if not criteria:
        state = "no_criteria_declared"
    elif departures:
        state = "departures"
    else:
        state = "clean"
    delivered = {
        "artifact_id": d.item.id, "title": d.item.title, "status": d.item.status,
        "record": d.record.id, "delivered_at": d.record.created_at, "clock": "source",
        "criteria": len(criteria),
        "criteria_from": "record" if quoted is not None else "item",
        "ruled": sum(1 for p in range(1, len(criteria) + 1) if p in verdicts),
        "state": state,
    }
    if d.record.metadata.get("delivered_by"):
        delivered["delivered_by"] = d.record.metadata["delivered_by"]
    return delivered, departures


def checklist_evidence(item: Artifact) -> dict[str, Any] | None:
    """What a Backlog.md task states of its own delivery: each acceptance criterion checked or
    not, its Definition of Done and its Final Summary; None when it states none of them."""
    checked = item.metadata.get("criteria_checked")
    dod = item.metadata.get("definition_of_done")
    summary = item.metadata.get("final_summary")
    marks = [bool(c) for c in checked] if isinstance(checked, list) else []
    if not marks and not dod and not summary:
        return None
    out: dict[str, Any] = {"criteria_checked": marks}
    if isinstance(dod, list) and dod:
        out["definition_of_done"] = {"total": len(dod),
                                     "checked": sum(1 for d in dod if d.get("checked"))}
    if summary:
        out["final_summary"] = str(summary)
    return out


def classify_checklist(item: Artifact,
                       evidence: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A done task read from its own checklist: asked (each criterion) against shipped (its
    check mark); an unchecked criterion or Definition of Done item is a departure."""
    marks: list[bool] = evidence["criteria_checked"]
    departures: list[dict[str, Any]] = []
    for pos, (text, done) in enumerate(zip(item.criteria, marks, strict=False), start=1):
        if not done:
            departures.append({"artifact_id": item.id, "record": None, "criterion": pos,
                               "text": text, "verdict": "unchecked",
                               "criterion_declared": True, "evidence": "checklist"})
    dod = evidence.get("definition_of_done")
    open_dod = dod["total"] - dod["checked"] if dod else 0
    if not item.criteria:
        state = "no_criteria_declared"
    elif departures or open_dod:
        state = "departures"
    else:
        state = "clean"
    row: dict[str, Any] = {
        "artifact_id": item.id, "title": item.title, "status": item.status,
        "flipped_at": item.source_updated_at, "clock": "source", "evidence": "checklist",
        "criteria": len(item.criteria), "checked": sum(marks[:len(item.criteria)]),
        "state": state,
    }
    if dod:
        row["definition_of_done"] = dod
    if evidence.get("final_summary"):
        row["final_summary"] = evidence["final_summary"]
    return row, departures


def _full_items(ctx: ScopeContext, ids: list[str]) -> dict[str, Artifact]:
    """The done items drift reads the checklists of, whole."""
    return ctx.store.held_artifacts(ids)


def _light(row: tuple[Any, ...]) -> Artifact:
    """A work item with just what drift reads of it (its criteria are loaded when delivered)."""
    return Artifact(row[0], row[1], row[2], "", "", status=row[3], source_updated_at=row[4])


def _items(ctx: ScopeContext, scope: ProjectScope, root: str | None) -> dict[str, Artifact]:
    """The work items drift reads: the project's own, or the branch beneath an artifact."""
    if root is not None:
        members = walk_members(ctx.graph, [root])
        ids = sorted(m for m, v in members.by_id.items() if v.position in ("own", "beneath"))
        return {row.id: _light(row) for row in ctx.store.live_items_of(ids)}
    return {row.id: _light(row) for name in scope.answering
            for row in ctx.store.live_items_in(name)}


def _records(ctx: ScopeContext, items: dict[str, Artifact]) -> list[Delivery]:
    out: list[Delivery] = []
    for record, item_id, item_criteria in ctx.store.live_deliveries():
        item = items.get(item_id)
        if item is not None:
            if not item.criteria:
                item.criteria = list(json.loads(item_criteria))
            out.append(Delivery(record, item))
    return out


def _capped(rows: list[Any], limit: int) -> tuple[list[Any], dict[str, Any] | None]:
    if len(rows) <= limit:
        return rows, None
    return rows[:limit], {"reason": "limit", "total": len(rows), "listed": limit,
                          "note": "narrow by a window or an artifact_id, or raise limit"}


def drift(ctx: ScopeContext, scope: ProjectScope, root: str | None, window: Window,
          limit: int) -> dict[str, Any]:
    """What was asked against what shipped, for every delivered item in the scope."""
    items = _items(ctx, scope, root)
    every = _records(ctx, items)
    deliveries = [d for d in every if not window.bounded or window.holds(d.record.created_at)]
    recorded = {d.item.id for d in every}
    delivered: list[dict[str, Any]] = []
    departures: list[dict[str, Any]] = []
    for d in deliveries:
        row, departs = classify(d)
        delivered.append(row)
        departures.extend(departs)
    delivered.sort(key=lambda r: (r["delivered_at"] or "", r["artifact_id"], r["record"]),
                   reverse=True)
    unrecorded = [a.id for a in items.values()
                  if a.status == "done" and a.id not in recorded and a.type in SHIPPED_TYPES
                  and (not window.bounded or window.holds(a.source_updated_at))]
    whole = _full_items(ctx, unrecorded)
    without: list[dict[str, Any]] = []
    checked: list[dict[str, Any]] = []
    for aid in unrecorded:
        a = whole.get(aid, items[aid])
        evidence = checklist_evidence(a)
        if evidence is not None:
            row, departs = classify_checklist(a, evidence)
            checked.append(row)
            departures.extend(departs)
            continue
        without.append({"artifact_id": a.id, "title": a.title, "status": a.status,
                        "flipped_at": a.source_updated_at, "clock": "source"})
    without.sort(key=lambda r: (r["flipped_at"] or "", r["artifact_id"]), reverse=True)
    checked.sort(key=lambda r: (r["flipped_at"] or "", r["artifact_id"]), reverse=True)
    no_criteria = [{"artifact_id": r["artifact_id"], "record": r["record"]}
                   for r in delivered if r["state"] == "no_criteria_declared"]
    clean = [r["artifact_id"] for r in delivered if r["state"] == "clean"]
    payload: dict[str, Any] = {
        "question": "drift",
        "scope": {"kind": "artifact", "artifact_id": root} if root else {"kind": "project"},
        "window": window.payload("source"),
        "provenance": {"inferred": False},
        "counts": {
            "delivered": len(delivered),
            "clean": len(clean),
            "with_departures": sum(1 for r in delivered if r["state"] == "departures"),
            "no_criteria_declared": len(no_criteria),
            "done_without_record": len(without),
            "checked_in_source": len(checked),
            "checked_clean": sum(1 for r in checked if r["state"] == "clean"),
            "departures": len(departures),
        },
    }
    for key, rows in (("delivered", delivered), ("departures", departures),
                      ("checked_in_source", checked),
                      ("done_without_record", without), ("no_criteria_declared", no_criteria),
                      ("clean", clean)):
        listed, report = _capped(rows, limit)
        payload[key] = listed
        if report is not None:
            payload[f"{key}_truncated" if key != "departures" else "truncated_departures"] = report
    return payload
