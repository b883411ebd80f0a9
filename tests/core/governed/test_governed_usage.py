"""record_usage: a provider receipt counts once, for one run; unknown parts make totals null."""

from __future__ import annotations

import pytest
from revetly_core.governed.usage import MAX_FIGURE, total, usage_totals

from revetly_core import Refusal, UsageLedger
from tests.core.governed.governed_world import World

REPORT = {"provider_receipt": "resp_01", "run_id": "run-1", "usd_micros": 1200, "input_tokens": 900,
          "output_tokens": 150, "model_calls": 1}


def test_receipt_reuse_never_double_counts(world: World) -> None:
    ledger = UsageLedger(world.feedback)
    first = ledger.record_usage(world.owner, world.scope, REPORT)
    assert ledger.record_usage(world.owner, world.scope, REPORT) == first
    totals = ledger.usage(world.session, "run-1")
    assert totals["receipts"] == 1 and totals["usd_micros"]["total"] == 1200
    assert totals["label"] == "partial host reports, not verified billing"


def test_a_receipt_cannot_be_reassigned_to_another_run_or_other_figures(world: World) -> None:
    ledger = UsageLedger(world.feedback)
    ledger.record_usage(world.owner, world.scope, REPORT)
    for changed in ({**REPORT, "run_id": "run-2"}, {**REPORT, "usd_micros": 1}):
        with pytest.raises(Refusal) as caught:
            ledger.record_usage(world.owner, world.scope, changed)
        assert caught.value.code == "usage_receipt_reused"
    assert ledger.usage(world.session, "run-2")["receipts"] == 0


def test_record_usage_is_owner_only(world: World) -> None:
    with pytest.raises(Refusal) as caught:
        UsageLedger(world.feedback).record_usage(world.app_token, world.scope, REPORT)
    assert caught.value.code == "not_owner"


def test_an_unknown_figure_makes_the_total_null_and_keeps_the_known_subtotal(world: World) -> None:
    ledger = UsageLedger(world.feedback)
    ledger.record_usage(world.owner, world.scope, REPORT)
    ledger.record_usage(world.owner, world.scope,
                        {**REPORT, "provider_receipt": "resp_02", "usd_micros": None})
    usd = ledger.usage(world.session, "run-1")["usd_micros"]
    assert usd == {"total": None, "known_subtotal": 1200, "unknown": 1}


def test_missing_capture_is_null_not_zero() -> None:
    assert usage_totals([])["usd_micros"]["total"] is None


def test_an_overflowing_total_says_so() -> None:
    assert total([MAX_FIGURE, 1]) == "overflow"
    assert total([1, None]) is None
    assert total([2, 3]) == 5


@pytest.mark.parametrize("bad", [{**REPORT, "usd_micros": 1.5}, {**REPORT, "input_tokens": -1},
                                 {**REPORT, "model_calls": "1"}, {**REPORT, "extra": 1},
                                 {k: v for k, v in REPORT.items() if k != "run_id"}])
def test_a_malformed_usage_report_is_refused(world: World, bad: dict[str, object]) -> None:
    with pytest.raises(Refusal) as caught:
        UsageLedger(world.feedback).record_usage(world.owner, world.scope, bad)
    assert caught.value.code == "bad_usage"


def test_a_known_subtotal_of_nothing_known_is_null_not_zero() -> None:
    from revetly_core.governed.usage import known_subtotal

    assert known_subtotal([None, None]) is None
    assert known_subtotal([None, 5, 7]) == 12
    assert known_subtotal([]) is None
