"""Delivery records: what shipped, who shipped it, a verdict per criterion as it then stood."""

from __future__ import annotations

from typing import Any

from revetly_core.refusal import Refusal
from revetly_core.store.db import Store
from revetly_core.writes.limits import MAX_CRITERION_CHARS, check_list, check_text

VERDICTS = ("met", "partial", "not-met")


def normalise_verdicts(verdicts: object, criteria: list[str], artifact_id: str) -> list[dict[str, Any]]:
    """One verdict per criterion, by position; a string list is read in criteria order."""
    given = check_list(verdicts, "verdicts")
    if not criteria:
        if given:
            raise Refusal("verdicts-without-criteria",
                          f"{artifact_id} declares no acceptance criteria, so there is nothing "
                          "to give a verdict on", "set done without verdicts",
                          {"field": "verdicts", "wrote": False})
        return []
    out: dict[int, dict[str, Any]] = {}
    for i, v in enumerate(given, 1):
        entry: dict[str, Any] = {"criterion": i, "verdict": v} if isinstance(v, str) else (
            dict(v) if isinstance(v, dict) else {})
        pos, word = entry.get("criterion"), entry.get("verdict")
        if isinstance(pos, bool) or not isinstance(pos, int) or not 1 <= pos <= len(criteria):
            raise Refusal("bad-verdict", f"verdict {i} names criterion {pos!r}; {artifact_id} "
                          f"has criteria 1 to {len(criteria)}",
                          "give each verdict a criterion position from 1",
                          {"field": "verdicts", "wrote": False})
        if word not in VERDICTS:
            raise Refusal("bad-verdict", f"verdict for criterion {pos} is {word!r}",
                          f"use one of: {', '.join(VERDICTS)}", {"field": "verdicts",
                                                                   "wrote": False})
        if pos in out:
            raise Refusal("bad-verdict", f"criterion {pos} has two verdicts",
                          "give one verdict per criterion", {"field": "verdicts", "wrote": False})
        row: dict[str, Any] = {"criterion": pos, "verdict": word}
        note = entry.get("note")
        if note:
            row["note"] = check_text(note, f"verdicts[{i}].note", MAX_CRITERION_CHARS)
        out[pos] = row
    missing = [n for n in range(1, len(criteria) + 1) if n not in out]
    if missing:
        raise Refusal("verdicts-required",
                      f"{artifact_id} has {len(criteria)} acceptance criteria; no verdict was "
                      f"given for {', '.join(map(str, missing))}",
                      "give a verdict (met, partial or not-met) for every criterion",
                      {"field": "verdicts", "missing": missing, "wrote": False})
    rows = [out[n] for n in sorted(out)]
    for row in rows:
        row["text"] = criteria[row["criterion"] - 1]
    return rows


def implementing_commits(store: Store | None, artifact_id: str) -> list[str]:
    """The commits CONTEXT holds that name the item (its commits source's own links)."""
    if store is None:
        return []
    return store.commits_linked_to(artifact_id)


def delivery_front(delivery_id: str, item_id: str, title: str, delivered_by: str, at: str,
                   verdicts: list[dict[str, Any]], commits: list[str]) -> dict[str, Any]:
    """The frontmatter of a delivery record."""
    front: dict[str, Any] = {
        "id": delivery_id, "title": f"Delivery of {item_id}: {title}", "type": "delivery",
        "delivers": item_id, "delivered_by": delivered_by, "delivered_at": at,
        "verdicts": verdicts,
    }
    if commits:
        front["implemented_by"] = commits
    return front


def delivery_body(item_id: str, verdicts: list[dict[str, Any]]) -> str:
    """The record's body: each criterion quoted as it stood, with its verdict."""
    if not verdicts:
        return f"{item_id} shipped. It declared no acceptance criteria, so none was ruled.\n"
    lines = [f"{item_id} shipped. Criteria as they stood at delivery:", ""]
    for v in verdicts:
        note = f" ({v['note']})" if v.get("note") else ""
        lines.append(f"{v['criterion']}. {v['text']} — {v['verdict']}{note}")
    return "\n".join(lines) + "\n"
