"""The ``outside_backlog`` block of list_backlog: tracker items no type map covered.

Such an item ingests with its source's own kind (``issue`` on GitHub) and is not on the
backlog; ingest stored why (``untyped_why`` in its metadata), and this block reads that back
from the store, never from the tracker. It is served whatever status or type was asked: every
such item counted, rows in id order within a quarter of the read budget, a cut named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from revetly_core.reads.budget import cut_report, payload_bytes

if TYPE_CHECKING:
    from revetly_core.answers.backlog import OutsideBacklog, OutsideRow
    from revetly_core.answers.common import CutReport
    from revetly_core.answers.health import OutsideCounts
    from revetly_core.model import Artifact
    from revetly_core.store.protocols import Store

BUDGET_SHARE = 4
"""The outside rows get one part in this many of the read budget."""
OUTSIDE_FIX = ("set the item's type, or a label the type map names, on its source; or extend "
               "[connectors.<kind>.types] in revetly.toml, then run `revetly sync`")
MIN_ROW_BYTES = 50
"""No served row is smaller than this (its four keys alone take more), so a quarter of the
budget holds at most quarter // MIN_ROW_BYTES rows: no more are loaded."""
LOAD_CHUNK = 32
"""Rows are loaded this many at a time, until the room is full."""


def outside_budget(budget: int) -> int:
    """The bytes the outside rows may take: a quarter of the read budget."""
    return budget // BUDGET_SHARE


def outside_row(a: Artifact) -> OutsideRow:
    """One outside row: id, title, the source's own kind, why, and the native type an
    ``unmapped`` item carries and the labels it has, where it has them."""
    why = str(a.metadata.get("untyped_why") or "untyped")
    row: OutsideRow = {"artifact_id": a.id, "title": a.title, "kind": a.type, "why": why}
    native = a.metadata.get("native_type")
    if why == "unmapped" and isinstance(native, str) and native:
        row["native_type"] = native
    labels = a.metadata.get("labels")
    if isinstance(labels, list) and labels:
        row["labels"] = [str(label) for label in labels]
    return row


def fit_outside(rows: list[OutsideRow], room: int) -> int:
    """How many rows, from the head, fit in ``room`` bytes as a JSON list."""
    size = 2  # the brackets
    for served, row in enumerate(rows):
        size += payload_bytes(row) + (1 if served else 0)
        if size > room:
            return served
    return len(rows)


def outside_cut(total: int, listed: int, budget: int) -> CutReport:
    """outside_backlog_truncated: the whole count, the rows listed, and the share that cut it."""
    report = cut_report(total, listed, budget)
    report["note"] = f"rows cut to a quarter of the {budget}-byte read budget"
    return report


def outside_backlog(store: Store, projects: tuple[str, ...],
                    budget: int) -> tuple[OutsideBacklog, CutReport | None]:
    """The block for the projects: every outside item counted, the rows that fit a quarter
    of ``budget`` listed in id order (loaded a few at a time, only until the room is full),
    and the cut report when some were left out (None when none was)."""
    room = outside_budget(budget)
    count, head = store.outside_head(projects, room // MIN_ROW_BYTES + 1)
    rows: list[OutsideRow] = []
    served = 0
    for start in range(0, len(head), LOAD_CHUNK):
        part = head[start:start + LOAD_CHUNK]
        loaded = store.compact_artifacts(part)
        rows += [outside_row(loaded[i]) for i in part if i in loaded]
        served = fit_outside(rows, room)
        if served < len(rows):
            break
    block: OutsideBacklog = {"count": count, "items": rows[:served]}
    if served < count:
        return block, outside_cut(count, served, budget)
    return block, None


def why_counts(rows: list[tuple[str, str, str, int]]) -> dict[str, int]:
    """``untyped`` and ``unmapped`` summed over (source, project, why, n) rows."""
    out = {"untyped": 0, "unmapped": 0}
    for _source, _project, why, n in rows:
        key = "unmapped" if why == "unmapped" else "untyped"
        out[key] += n
    return out


def outside_counts(store: Store) -> OutsideCounts:
    """What context_health says of the outside items: the count list_backlog's block gives
    (summed over the projects), by why, and the fix while any is held."""
    split = why_counts(store.outside_counts())
    total = split["untyped"] + split["unmapped"]
    out: OutsideCounts = {"count": total, "untyped": split["untyped"],
                          "unmapped": split["unmapped"]}
    if total:
        out["fix"] = OUTSIDE_FIX
    return out
