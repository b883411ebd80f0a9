"""The marks a served row carries: read for many rows at once as for each alone."""

from __future__ import annotations

from revetly_core.model import Link
from revetly_core.reads.marks import row_marks, rows_marks
from revetly_core.store.db import Store

from tests.core.stored import art

T0 = "2024-01-01T00:00:00+00:00"
T1 = "2024-02-01T00:00:00+00:00"


def test_the_marks_of_many_rows_read_at_once_are_each_row_s_own(store: Store) -> None:
    rows = [
        art("STORY-0001", criteria=["Pays by card", "Retries twice"]),
        art("STORY-0002", deleted=True, deleted_at=T1, deleted_note="moved"),
        art("STORY-0003", status="discarded", metadata={"discard_reason": "duplicate"}),
        art("DEC-0001", type="decision", provenance="inferred"),
        art("NOTE-0001", type="note", created_at=T0),
        art("NOTE-0002", type="note", created_at=T1),
        art("NOTE-0003", type="note", deleted=True),
    ]
    store.upsert_artifacts(rows, T0)
    store.state_links([
        Link("NOTE-0001", "STORY-0001", "revises", "declared",
             (("criteria", [1]), ("criteria_fp", ["0" * 12]))),
        Link("NOTE-0002", "STORY-0001", "revises", "declared", (("criteria", [2]),)),
        Link("NOTE-0003", "STORY-0001", "revises", "declared", (("criteria", [1]),)),
        Link("NOTE-0002", "DEC-0001", "supersedes", "declared"),
        Link("NOTE-0001", "DEC-0001", "supersedes", "declared"),
        Link("NOTE-0003", "STORY-0003", "supersedes", "declared"),
        Link("NOTE-0001", "STORY-0002", "revises", "declared", (("criteria", [1]),)),
    ], T0)
    held = store.held_artifacts([a.id for a in rows])
    served = [held[a.id] for a in rows]
    together = rows_marks(store, served)
    assert together == {a.id: row_marks(store, a) for a in served}
    assert [r["id"] for r in together["STORY-0001"]["revised_by"]] == ["NOTE-0002", "NOTE-0001"]
    assert together["DEC-0001"]["superseded_by"] == ["NOTE-0001", "NOTE-0002"]
    assert "superseded_by" not in together["STORY-0003"]  # its superseder is deleted
