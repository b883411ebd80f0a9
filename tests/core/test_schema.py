"""The frontmatter schema: required keys, coercions, statuses by type, revises and verdicts."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pydantic import ValidationError
from revetly_core.model import ARTIFACT_TYPES, WORK_ITEM_STATUSES
from revetly_core.schema import Frontmatter, describe_error


def fm(**over: Any) -> Frontmatter:
    data: dict[str, Any] = {"id": "STORY-0001", "title": "Export invoices", "type": "story"}
    data.update(over)
    return Frontmatter.model_validate(data)


def error_of(**over: Any) -> str:
    data: dict[str, Any] = {"id": "STORY-0001", "title": "Export invoices", "type": "story"}
    data.update(over)
    data = {k: v for k, v in data.items() if v is not ...}
    with pytest.raises(ValidationError) as info:
        Frontmatter.model_validate(data)
    return describe_error(info.value)


def test_minimal_frontmatter_defaults() -> None:
    f = fm()
    assert (f.id, f.title, f.type) == ("STORY-0001", "Export invoices", "story")
    assert f.status is None and f.parent is None and f.owner is None
    assert f.cites == [] and f.references == [] and f.related_ids == [] and f.supersedes == []
    assert f.revises == [] and f.implemented_by == [] and f.verdicts == [] and f.aliases == []
    assert f.withheld is False
    assert f.extra_metadata() == {}


@pytest.mark.parametrize("missing", ["id", "title", "type"])
def test_a_missing_required_key_is_named(missing: str) -> None:
    assert error_of(**{missing: ...}) == f"{missing} is required"


def test_numbers_become_text() -> None:
    f = fm(id=12, title=2024, owner=7, parent=3)
    assert (f.id, f.title, f.owner, f.parent) == ("12", "2024", "7", "3")


def test_title_is_stripped_and_never_empty() -> None:
    assert fm(title="  Export  ").title == "Export"
    assert "title is empty" in error_of(title="   ")


def test_an_unknown_type_is_refused() -> None:
    msg = error_of(type="saga")
    assert msg.startswith("type:")


@pytest.mark.parametrize("typ", ARTIFACT_TYPES)
def test_every_artifact_type_is_accepted(typ: str) -> None:
    assert fm(type=typ).type == typ


@pytest.mark.parametrize("status", WORK_ITEM_STATUSES)
def test_work_item_statuses(status: str) -> None:
    assert fm(status=status).status == status


def test_a_status_must_fit_the_type() -> None:
    assert "is not a work item status" in error_of(status="accepted")
    assert "is not a decision status" in error_of(type="decision", status="done")
    assert fm(type="decision", status="superseded").status == "superseded"
    assert fm(type="constraint", status="accepted").status == "accepted"
    # other notes and records carry any status
    assert fm(type="conversation", status="whatever").status == "whatever"
    assert fm(type="delivery", status="shipped").status == "shipped"


def test_id_lists_accept_a_single_id_or_nothing() -> None:
    f = fm(cites="DEC-1", references=None, related_ids=["STORY-2", "STORY-3"], supersedes=4)
    assert f.cites == ["DEC-1"]
    assert f.references == []
    assert f.related_ids == ["STORY-2", "STORY-3"]
    assert f.supersedes == ["4"]


def test_dates_become_iso_text() -> None:
    f = fm(created=dt.date(2024, 1, 2), updated=dt.datetime(2024, 1, 3, 4, 5, 6))
    assert f.created == "2024-01-02"
    assert f.updated == "2024-01-03T04:05:06"


def test_revises_short_and_long_forms() -> None:
    f = fm(type="decision", revises=["STORY-1", {"id": "STORY-2", "criteria": [1, 3],
                                                   "criteria_fp": ["abcd1234", "0000ffff"]}])
    assert [e.id for e in f.revises] == ["STORY-1", "STORY-2"]
    assert f.revises[0].criteria == [] and f.revises[0].criteria_fp is None
    assert f.revises[1].criteria == [1, 3]
    assert f.revises[1].criteria_fp == ["abcd1234", "0000ffff"]
    assert [e.id for e in fm(type="decision", revises="STORY-9").revises] == ["STORY-9"]


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ({"id": "STORY-1", "criteria": [0]}, "whole numbers from 1"),
        ({"id": "STORY-1", "criteria": [1, 2], "criteria_fp": ["abcd1234"]}, "one fingerprint"),
        ({"id": "STORY-1", "criterion": [1]}, "revises.0"),
    ],
)
def test_bad_revises_entries_are_refused(entry: dict[str, Any], fragment: str) -> None:
    assert fragment in error_of(type="decision", revises=[entry])


def test_a_boolean_criterion_position_is_refused() -> None:
    # RevisesEntry._positions means to refuse booleans (`criteria: [yes]` in YAML), but pydantic
    # has already coerced True to 1 before the validator sees it.
    assert "whole numbers from 1" in error_of(
        type="decision", revises=[{"id": "STORY-1", "criteria": [True]}])


def test_verdicts() -> None:
    f = fm(type="delivery", verdicts=[{"criterion": 1, "verdict": "met"},
                                      {"criterion": 2, "verdict": "partial", "note": 5}])
    assert [(v.criterion, v.verdict, v.note) for v in f.verdicts] == [(1, "met", None),
                                                                      (2, "partial", "5")]
    assert "verdicts.0.verdict" in error_of(type="delivery",
                                            verdicts=[{"criterion": 1, "verdict": "great"}])
    assert "verdicts.0.criterion" in error_of(type="delivery",
                                              verdicts=[{"criterion": 0, "verdict": "met"}])


def test_unknown_keys_are_kept_as_metadata() -> None:
    f = fm(priority="high", estimate=3, labels=["a", "b"])
    assert f.extra_metadata() == {"priority": "high", "estimate": 3, "labels": ["a", "b"]}


def test_withheld_is_a_boolean() -> None:
    assert fm(withheld=True).withheld is True
    assert "withheld" in error_of(withheld="sometimes")


def test_describe_error_names_the_nested_field() -> None:
    msg = error_of(type="decision", revises=[{"id": "STORY-1", "criteria": "x"}])
    assert msg.startswith("revises.0.criteria")
