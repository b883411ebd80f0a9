"""A review record is written and read back through one pydantic schema, never by hand."""

from __future__ import annotations

import pytest
from revetly_core.writes.reviews import ReviewRecord


def _record() -> ReviewRecord:
    return ReviewRecord(
        review_id="REV-0123456789abcdef", kind="draft", status="pending", project="acme",
        created_at="2025-03-01T10:00:00+00:00", updated_at="2025-03-01T10:00:00+00:00",
        drafted_by={"name": "Agent", "kind": "agent"}, draft={"title": "Export invoices"},
        raises=[{"at": "2025-03-01T10:00:00+00:00"}])


def test_a_record_round_trips_through_its_schema() -> None:
    record = _record()
    assert ReviewRecord.from_json(record.to_json()) == record


def test_the_file_holds_every_field() -> None:
    assert sorted(_record().to_json()) == sorted([
        "review_id", "kind", "status", "project", "created_at", "updated_at", "drafted_by",
        "draft", "session_id", "gate", "raises", "decision", "wrote", "written", "refusal"])


def test_absent_optional_fields_take_their_defaults() -> None:
    data = _record().to_json()
    for name in ("session_id", "gate", "raises", "decision", "wrote", "written", "refusal"):
        del data[name]
    read = ReviewRecord.from_json(data)
    assert (read.gate, read.raises, read.wrote, read.decision) == ("parked", [], False, None)


def test_a_missing_required_field_is_a_value_error() -> None:
    data = _record().to_json()
    del data["draft"]
    with pytest.raises(ValueError):
        ReviewRecord.from_json(data)


def test_a_mistyped_field_is_a_value_error() -> None:
    data = _record().to_json() | {"drafted_by": ["not", "a", "principal"]}
    with pytest.raises(ValueError):
        ReviewRecord.from_json(data)
