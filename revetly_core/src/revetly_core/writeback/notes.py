"""The words Revetly puts on a tracker item: the claim note and the delivery note. Every
adapter posts these same texts, each ending with its marker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from revetly_core.writeback.markers import claim_marker, delivery_marker, marked


def claim_note_text(artifact_id: str, claim: Mapping[str, Any]) -> str:
    """The claim note: who holds the item and since when (and why, on a takeover)."""
    lines = [f"**In progress** with {claim['by']} since {claim['at']} (claimed through Revetly)."]
    if claim.get("taken_over_from"):
        lines.append(f"Taken over from {claim['taken_over_from']}: {claim.get('reason') or ''}"
                     .rstrip(": "))
    elif claim.get("reason"):
        lines.append(f"Reason: {claim['reason']}")
    return marked("\n\n".join(lines), claim_marker(artifact_id))


def released_note_text(artifact_id: str, status: str, by: str, at: str) -> str:
    """The claim note once the claim ends: the item left in-progress, and who moved it."""
    return marked(f"**No longer in progress**: set {status} by {by} at {at} (through Revetly).",
                  claim_marker(artifact_id))


def delivery_note_text(artifact_id: str, delivery: Mapping[str, Any]) -> str:
    """The delivery note: the record's id, and each criterion as it stood with its verdict."""
    did = str(delivery["artifact_id"])
    verdicts = delivery.get("verdicts") or []
    lines = [f"**Delivered** ({did}): {artifact_id} shipped."]
    if verdicts:
        lines.append("Criteria as they stood at delivery:")
        lines += [f"{v['criterion']}. {v['text']} — **{v['verdict']}**"
                  + (f" ({v['note']})" if v.get("note") else "") for v in verdicts]
    else:
        lines.append("It declared no acceptance criteria, so none was ruled.")
    commits = delivery.get("implemented_by") or []
    if commits:
        lines.append("Implemented by: " + ", ".join(str(c)[:12] for c in commits))
    return marked("\n\n".join(lines[:2]) + ("\n" + "\n".join(lines[2:]) if lines[2:] else ""),
                  delivery_marker(did))
