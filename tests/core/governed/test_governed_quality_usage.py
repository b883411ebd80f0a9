"""Usage in quality reports: only retained scheduled runs, labelled partial, missing capture null."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.governed.usage import MAX_FIGURE, USAGE_LABEL, scheduled_usage, usage_of_runs

from revetly_core import UsageLedger
from tests.core.governed.governed_world import World


def _usage(receipt: str, run: str, usd: int | None = 100, tokens: int | None = 10) -> dict[str, Any]:
    return {"provider_receipt": receipt, "run_id": run, "usd_micros": usd, "input_tokens": tokens,
            "output_tokens": tokens, "model_calls": 1}


def _record(receipt: str, run: str, usd: int | None = 100, tokens: int | None = 10) -> dict[str, Any]:
    return {"usage": _usage(receipt, run, usd, tokens)}


def _report(world: World, task: str, run: str, key: str, schedule: str = "s1") -> None:
    world.feedback.report_outcome(world.session, {"run_id": run, "task_id": task, "status": "succeeded",
                                                  "schedule_id": schedule}, key)


def test_only_usage_of_the_scheduled_runs_is_aggregated() -> None:
    records = [_record("r1", "run-a"), _record("r2", "run-other")]
    assert usage_of_runs(records, ["run-a"]) == [records[0]]
    usage = scheduled_usage(records, ["run-a"])
    assert usage["receipts"] == 1 and usage["usd_micros"]["total"] == 100


def test_usage_is_labelled_partial_host_reports() -> None:
    label = scheduled_usage([], ["run-a"])["label"]
    assert label == USAGE_LABEL == "partial host reports, not verified billing"


def test_a_scheduled_run_without_usage_makes_the_totals_null_not_zero() -> None:
    usage = scheduled_usage([_record("r1", "run-a")], ["run-a", "run-b"])
    assert usage["runs_missing_usage"] == ["run-b"] and usage["runs_with_usage"] == 1
    assert usage["usd_micros"] == {"total": None, "known_subtotal": 100, "unknown": 1}


def test_no_capture_at_all_is_null_not_zero() -> None:
    usage = scheduled_usage([], ["run-a"])
    assert usage["usd_micros"] == {"total": None, "known_subtotal": None, "unknown": 1}
    nothing = scheduled_usage([], [])
    assert nothing["runs"] == 0 and nothing["usd_micros"]["total"] is None


def test_an_unknown_figure_nulls_its_total_and_keeps_known_subtotals_separate() -> None:
    usage = scheduled_usage([_record("r1", "run-a", usd=None), _record("r2", "run-a", usd=250)], ["run-a"])
    assert usage["usd_micros"] == {"total": None, "known_subtotal": 250, "unknown": 1}
    assert usage["input_tokens"] == {"total": 20, "known_subtotal": 20, "unknown": 0}


def test_an_overflowing_scheduled_total_says_so() -> None:
    usage = scheduled_usage([_record("r1", "run-a", tokens=MAX_FIGURE), _record("r2", "run-b", tokens=1)],
                            ["run-a", "run-b"])
    assert usage["input_tokens"]["total"] == "overflow"


@given(st.lists(st.tuples(st.sampled_from(["run-a", "run-b", "run-c"]),
                          st.one_of(st.none(), st.integers(0, 10**6))), max_size=8),
       st.sets(st.sampled_from(["run-a", "run-b", "run-c", "run-d"]), max_size=4))
def test_a_total_is_never_smaller_than_its_known_subtotal(parts: list[tuple[str, int | None]],
                                                           runs: set[str]) -> None:
    records = [_record(f"r{n}", run, usd=usd) for n, (run, usd) in enumerate(parts)]
    usage = scheduled_usage(records, runs)
    figure = usage["usd_micros"]
    if figure["total"] is not None:
        assert figure["unknown"] == 0 and figure["total"] == figure["known_subtotal"]
    assert usage["runs_with_usage"] + len(usage["runs_missing_usage"]) == usage["runs"] == len(runs)


def test_the_quality_report_carries_the_usage_of_its_scheduled_runs(world: World) -> None:
    world.feedback.freeze_schedule(world.owner, world.scope, "s1", ["t1", "t2"])
    _report(world, "t1", "run-a", "k1")
    _report(world, "t2", "run-b", "k2")
    _report(world, "t9", "run-c", "k3")  # not a task of the schedule: its run is not a scheduled run
    ledger = UsageLedger(world.feedback)
    ledger.record_usage(world.owner, world.scope, _usage("resp-1", "run-a", usd=300))
    ledger.record_usage(world.owner, world.scope, _usage("resp-1", "run-a", usd=300))  # a retry
    ledger.record_usage(world.owner, world.scope, _usage("resp-3", "run-c", usd=999))
    usage = world.feedback.quality(world.session, "s1")["usage"]
    assert (usage["runs"], usage["receipts"], usage["runs_missing_usage"]) == (2, 1, ["run-b"])
    assert usage["usd_micros"] == {"total": None, "known_subtotal": 300, "unknown": 1}
    ledger.record_usage(world.owner, world.scope, _usage("resp-2", "run-b", usd=50))
    usage = world.feedback.quality(world.session, "s1")["usage"]
    assert usage["usd_micros"] == {"total": 350, "known_subtotal": 350, "unknown": 0}
