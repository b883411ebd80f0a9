"""FeedbackService: capabilities, unverified outcomes, frozen-schedule quality, metrics, the budget."""

from __future__ import annotations

import json

import pytest
from revetly_core.governed.budget import enforce_result_budget
from revetly_core.governed.feedback import quality_counts, rate
from revetly_core.governed.metrics import OperationalMetrics, percentile

from revetly_core import RagQuery, Refusal
from tests.core.governed.governed_world import World

REPORT = {"run_id": "run-1", "task_id": "t1", "status": "succeeded", "schedule_id": "weekly"}


def test_capabilities_name_the_scope_and_operations(world: World) -> None:
    caps = world.feedback.capabilities(world.session)
    assert caps["scope"] == {"agent": "writer", "workspace": "project"}
    assert caps["operations"] == ["inspect", "read", "report", "search"]
    assert caps["principal_id"] == world.principal_id


def test_a_report_is_an_attributed_unverified_observation(world: World) -> None:
    record = world.feedback.report_outcome(world.session, REPORT, "key-1")
    assert record["verification"] == "unverified"
    assert record["reported_by"] == world.principal_id
    assert world.feedback.outcome(world.session, record["outcome_id"]) == record


def test_reports_are_idempotent_by_key(world: World) -> None:
    first = world.feedback.report_outcome(world.session, REPORT, "key-1")
    assert world.feedback.report_outcome(world.session, REPORT, "key-1") == first
    with pytest.raises(Refusal) as refused:
        world.feedback.report_outcome(world.session, {**REPORT, "status": "failed"}, "key-1")
    assert refused.value.code == "idempotency_conflict"


@pytest.mark.parametrize("bad", [{}, {**REPORT, "status": "great"}, {**REPORT, "extra": 1},
                                 {**REPORT, "receipts": ["r"] * 33}, "text"])
def test_malformed_reports_are_refused(world: World, bad: object) -> None:
    with pytest.raises(Refusal) as refused:
        world.feedback.report_outcome(world.session, bad, "key-1")  # type: ignore[arg-type]
    assert refused.value.code == "bad_outcome"


def test_an_unknown_outcome_is_refused(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        world.feedback.outcome(world.session, "out-missing")
    assert refused.value.code == "no_outcome"


def test_quality_counts_a_frozen_schedule(world: World) -> None:
    world.feedback.freeze_schedule(world.owner, world.scope, "weekly", ["t1", "t2", "t3"])
    world.feedback.report_outcome(world.session, REPORT, "a")
    world.feedback.report_outcome(world.session, {**REPORT, "task_id": "t2", "status": "failed"}, "b")
    world.feedback.report_outcome(world.session, {**REPORT, "task_id": "t9"}, "c")
    quality = world.feedback.quality(world.session, "weekly")
    assert (quality["scheduled"], quality["observed"], quality["missing"]) == (3, 2, 1)
    assert quality["rates"] == {"observed": round(2 / 3, 6), "success": 0.5}


def test_undefined_rates_are_null_not_zero() -> None:
    counts = quality_counts(["t1"], [])
    assert counts["rates"] == {"observed": 0.0, "success": None}
    assert rate(0, 0) is None


def test_a_frozen_schedule_never_changes(world: World) -> None:
    world.feedback.freeze_schedule(world.owner, world.scope, "weekly", ["t1"])
    with pytest.raises(Refusal) as refused:
        world.feedback.freeze_schedule(world.owner, world.scope, "weekly", ["t1", "t2"])
    assert refused.value.code == "schedule_frozen"


def test_quality_of_an_unfrozen_schedule_is_refused(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        world.feedback.quality(world.session, "never")
    assert refused.value.code == "no_schedule"


def test_operational_metrics_hold_no_passages_arguments_or_tokens(world: World) -> None:
    world.rag.search(world.session, RagQuery("law", "secretword filing"), idempotency_key="key-secret")
    with pytest.raises(Refusal):
        world.rag.search(world.session, RagQuery("nope", "x"), idempotency_key="k2")
    metrics = world.feedback.operational_metrics(world.session)
    search = metrics["operations"]["rag_search"]
    assert (search["calls"], search["ok"], search["refused"]) == (2, 1, 1)
    assert search["p50_ms"] is not None
    text = json.dumps(metrics)
    for secret in ("secretword", "key-secret", "annual returns", world.app_token):
        assert secret not in text


def test_metrics_track_at_most_64_scopes() -> None:
    metrics = OperationalMetrics()
    for i in range(70):
        metrics.record(f"s{i}", "rag_search", "ok", 0.001)
    assert metrics.dropped_scopes == 6
    metrics.record("s0", "not-an-operation", "ok", 0.001)
    assert "not-an-operation" not in metrics.snapshot("s0")


def test_latency_windows_keep_the_last_256_calls() -> None:
    metrics = OperationalMetrics()
    for i in range(300):
        metrics.record("s", "rag_inspect", "ok", float(i))
    snap = metrics.snapshot("s")["rag_inspect"]
    assert snap["calls"] == 300 and snap["window"] == 256
    assert snap["p50_ms"] == 171_000.0


def test_percentiles_use_nearest_rank() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 0.95) == 95.0


def test_an_answer_over_budget_is_an_explicit_error() -> None:
    payload = {"tasks": ["x" * 100] * 100}
    assert enforce_result_budget(payload, 20_000) is payload
    with pytest.raises(Refusal) as refused:
        enforce_result_budget(payload, 5_000)
    assert refused.value.code == "result_budget_exhausted"
    assert refused.value.extra["budget"] == 5_000
