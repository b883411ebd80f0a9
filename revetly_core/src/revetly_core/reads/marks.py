"""The marks a served row never loses: deletion, supersession and revision."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from revetly_core.markdown.criteria import criteria_fingerprint

if TYPE_CHECKING:
    from revetly_core.answers.common import Marks, Reviser
    from revetly_core.model import Artifact
    from revetly_core.store.protocols import Store

REVISED_BY_MARK = True
"""Every served row of a work item a note declares it revises carries revised_by."""


def deletion_marks(a: Artifact) -> Marks:
    """deleted, deleted_at (absent when unknown), deleted_clock and deleted_note of a deleted row."""
    if not a.deleted:
        return {}
    marks: Marks = {"deleted": True}
    if a.deleted_at:
        marks["deleted_at"] = a.deleted_at
        marks["deleted_clock"] = a.deleted_clock or "found"
    if a.deleted_note:
        marks["deleted_note"] = a.deleted_note
    return marks


def superseded_by(store: Store, artifact_id: str) -> list[str]:
    """Ids of live notes whose frontmatter declares they supersede this artifact, sorted."""
    return store.live_superseders(artifact_id)


def criterion_changed(fingerprint: str | None, position: int, criteria: list[str]) -> bool | None:
    """True when the fingerprinted criterion's text has changed or is gone; None unfingerprinted."""
    if fingerprint is None:
        return None
    if position < 1 or position > len(criteria):
        return True
    return criteria_fingerprint(criteria[position - 1]) != fingerprint


def revised_by(store: Store, item: Artifact) -> list[Reviser]:
    """One entry per live note declaring it revises the item, newest first, with criterion_changed."""
    return revisers(item, store.revising_notes(item.id))


def revisers(item: Artifact, notes: list[tuple[str, str, str | None]]) -> list[Reviser]:
    """The revised_by entries of an item from its revising notes (note, link detail JSON,
    created_at), newest first."""
    entries: list[tuple[str, str, Reviser]] = []
    for src, detail_text, created in notes:
        detail = json.loads(detail_text)
        entry: Reviser = {"id": src, "criteria": list(detail.get("criteria", []))}
        fps = detail.get("criteria_fp")
        if fps:
            entry["criterion_changed"] = any(
                criterion_changed(fp, pos, item.criteria)
                for pos, fp in zip(entry["criteria"], fps, strict=False)
            )
        entries.append((created or "", src, entry))
    entries.sort(key=lambda e: (e[0], e[1]), reverse=True)
    return [e[2] for e in entries]


def carries_revised_by(a: Artifact) -> bool:
    """Whether a row of this artifact is marked with the notes revising it (a work item's)."""
    return REVISED_BY_MARK and a.kind == "work-item"


def row_marks(store: Store, a: Artifact) -> Marks:
    """Every mark a row of this artifact carries wherever it is served."""
    notes = store.revising_notes(a.id) if carries_revised_by(a) else []
    return marks_of(a, superseded_by(store, a.id), notes)


def rows_marks(store: Store, artifacts: list[Artifact]) -> dict[str, Marks]:
    """id -> `row_marks` of each artifact, the supersedes and revises links of all of them read
    at once (two queries, not two per row)."""
    superseders = store.superseders_of([a.id for a in artifacts])
    notes = store.revising_notes_of([a.id for a in artifacts if carries_revised_by(a)])
    return {a.id: marks_of(a, superseders.get(a.id, []), notes.get(a.id, [])) for a in artifacts}


def marks_of(a: Artifact, superseders: list[str], notes: list[tuple[str, str, str | None]]) -> Marks:
    """The marks of a row from the artifact, the notes superseding it and those revising it."""
    marks = deletion_marks(a)
    if superseders:
        marks["superseded_by"] = superseders
    if a.provenance != "source-of-record":
        marks["provenance"] = a.provenance
    if carries_revised_by(a):
        rev = revisers(a, notes)
        if rev:
            marks["revised_by"] = rev
    if a.status == "discarded" and a.metadata.get("discard_reason"):
        marks["discard_reason"] = a.metadata["discard_reason"]
    return marks
