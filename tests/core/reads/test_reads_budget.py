"""The read budget: whole rows dropped from the tail, in cut order, every cut reported."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.reads.budget import Cut, fit, payload_bytes, read_budget
from revetly_core.refusal import Refusal

ROW = st.fixed_dictionaries({"id": st.text(min_size=1, max_size=12), "text": st.text(max_size=300)})


def test_payload_under_budget_is_untouched() -> None:
    payload = {"rows": [{"a": 1}], "other": "x"}
    assert fit(payload, [Cut(("rows",), "truncated_rows")], 10_000) == {"rows": [{"a": 1}], "other": "x"}


def test_cut_order_empties_the_first_list_before_touching_the_next() -> None:
    payload = {"passages": [{"t": "p" * 100}] * 5, "artifacts": [{"t": "a" * 100}] * 5}
    fit(payload, [Cut(("passages",), "truncated_passages"), Cut(("artifacts",), "truncated_artifacts")],
        700)
    assert payload_bytes(payload) <= 700
    assert len(payload["artifacts"]) == 5 or payload["passages"] == []
    assert payload["truncated_passages"]["total"] == 5
    assert payload["truncated_passages"]["reason"] == "read-budget"


def test_tail_is_cut_first() -> None:
    rows = [{"rank": i, "pad": "x" * 50} for i in range(20)]
    payload = {"rows": rows}
    fit(payload, [Cut(("rows",), "truncated")], 600)
    ranks = [r["rank"] for r in payload["rows"]]
    assert ranks == list(range(len(ranks)))
    assert payload["truncated"]["listed"] == len(ranks)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(ROW, max_size=40), more=st.lists(ROW, max_size=40),
       budget=st.integers(min_value=1_024, max_value=8_000))
def test_a_fitted_payload_never_exceeds_the_budget_and_never_cuts_a_value(
    rows: list[dict[str, str]], more: list[dict[str, str]], budget: int
) -> None:
    payload = {"head": "h", "a": list(rows), "b": list(more)}
    fit(payload, [Cut(("a",), "truncated_a"), Cut(("b",), "truncated_b")], budget)
    assert payload_bytes(payload) <= budget
    assert payload["a"] == rows[: len(payload["a"])]  # every kept row whole and in order
    assert payload["b"] == more[: len(payload["b"])]
    for key, whole in (("a", rows), ("b", more)):
        if len(payload[key]) < len(whole):
            assert payload[f"truncated_{key}"]["total"] == len(whole)
            assert payload[f"truncated_{key}"]["listed"] == len(payload[key])


def test_budget_from_environment_overrides_the_instance() -> None:
    assert read_budget(32_768, {"REVETLY_READ_BUDGET": "4096"}) == 4096
    assert read_budget(32_768, {}) == 32_768


@pytest.mark.parametrize("bad", ["lots", "12", "-5"])
def test_a_bad_budget_is_refused_naming_the_variable(bad: str) -> None:
    with pytest.raises(Refusal) as err:
        read_budget(32_768, {"REVETLY_READ_BUDGET": bad})
    assert err.value.extra["setting"] == "REVETLY_READ_BUDGET"


def test_payload_bytes_measures_compact_utf8() -> None:
    assert payload_bytes({"k": "é"}) == len(json.dumps({"k": "é"}, ensure_ascii=False,
                                                       separators=(",", ":")).encode())
