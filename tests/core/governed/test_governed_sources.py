"""The rules every hit passes: identity, revision, scope, digest; jurisdiction and date filters."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from revetly_core.governed.sources import (
    filter_hits,
    in_force,
    matches_jurisdiction,
    passage_digest,
    unknown_fields,
    validate_hit,
)

from revetly_core import RagHit, RagQuery, RagSource, Refusal, Scope

SCOPE = Scope("writer", "project")
SOURCE = RagSource("law", SCOPE, "statutes", "r1", "none", "sqlite-vault")


def _hit(start: str | None = None, end: str | None = None, juris: str | None = "XX",
         doc: str = "d") -> RagHit:
    return RagHit.make(SOURCE, doc, "c", "text of the passage", "cite", "", juris, start, end)


def test_the_digest_is_sha256_of_the_exact_utf8_text() -> None:
    import hashlib

    assert passage_digest("é") == hashlib.sha256("é".encode()).hexdigest()


def test_a_valid_hit_passes() -> None:
    assert validate_hit(SOURCE, _hit()) == _hit()


@pytest.mark.parametrize("change", [
    {"sha256": "0" * 64}, {"passage": "changed text"}, {"source_id": "other"}, {"revision": "r2"},
    {"scope": Scope("writer", "elsewhere")}, {"document_id": ""},
])
def test_a_hit_that_breaks_a_rule_is_malformed(change: dict[str, object]) -> None:
    with pytest.raises(Refusal) as refused:
        validate_hit(SOURCE, replace(_hit(), **change))  # type: ignore[arg-type]
    assert refused.value.code == "provider_malformed_result"


def test_a_non_hit_is_malformed() -> None:
    with pytest.raises(Refusal):
        validate_hit(SOURCE, {"passage": "x"})


def test_validity_intervals_are_half_open() -> None:
    hit = _hit("2025-01-01", "2026-01-01")
    assert in_force(hit, date(2025, 1, 1))
    assert in_force(hit, date(2025, 12, 31))
    assert not in_force(hit, date(2026, 1, 1))
    assert not in_force(hit, date(2024, 12, 31))


def test_a_requested_date_excludes_an_unknown_start() -> None:
    assert not in_force(_hit(None, None), date(2025, 6, 1))
    assert in_force(_hit("2020-01-01", None), date(2025, 6, 1))


def test_jurisdiction_matches_exactly() -> None:
    assert matches_jurisdiction(_hit(juris="XX"), "XX")
    assert not matches_jurisdiction(_hit(juris=None), "XX")
    assert not matches_jurisdiction(_hit(juris="xx"), "XX")


def test_unfiltered_unknowns_stay_and_are_named() -> None:
    unknown = _hit(None, None, None)
    assert filter_hits((unknown,), RagQuery("law", "q")) == (unknown,)
    assert unknown_fields(unknown) == ["jurisdiction", "effective_from", "effective_to"]
    assert unknown.to_dict()["effective_from"] is None


def test_filters_apply_before_the_limit() -> None:
    hits = tuple(_hit(juris=j, doc=f"d{i}") for i, j in enumerate(["YY", "YY", "XX", "XX"]))
    kept = filter_hits(hits, RagQuery("law", "q", jurisdiction="XX", limit=1))
    assert [h.document_id for h in kept] == ["d2"]


@pytest.mark.parametrize("kwargs", [{"text": ""}, {"text": "x" * 1001}, {"limit": 0}, {"limit": 51},
                                    {"source_id": "../etc"}, {"as_of": "yesterday"}])
def test_bad_queries_are_refused(kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {"source_id": "law", "text": "q", **kwargs}
    with pytest.raises(Refusal):
        RagQuery(**args)  # type: ignore[arg-type]


def test_a_query_accepts_an_iso_date() -> None:
    assert RagQuery("law", "q", as_of="2026-01-01").as_of == date(2026, 1, 1)  # type: ignore[arg-type]


def test_sources_declare_egress_explicitly() -> None:
    with pytest.raises(Refusal) as refused:
        RagSource("law", SCOPE, "c", "r1", "cloud", "p")  # type: ignore[arg-type]
    assert refused.value.code == "bad_egress"


def test_hits_round_trip_through_dicts() -> None:
    hit = _hit("2025-01-01", "2026-01-01")
    assert RagHit.from_dict(hit.to_dict()) == hit
