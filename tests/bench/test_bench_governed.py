"""The guarded leg of bench/bench_governed.py runs and reports every figure (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

from tests.support.scripts import load_script

bench = load_script("revetly_bench_governed",
                    Path(__file__).resolve().parents[2] / "bench" / "bench_governed.py")


def test_the_guarded_leg_reports_both_sides_of_each_pair() -> None:
    report = bench.run_guarded(3)
    assert report["guarded_calls"] == 3
    assert {"direct_p50_ms", "guarded_p50_ms", "guarded_overhead_p50_ms",
            "vault_append_p50_ms"} <= report.keys()


def test_the_counter_handler_counts_each_call() -> None:
    counter = bench.Counter()
    assert counter.invoke({"text": "a"}) == {"n": 1, "echo": "a"}
    assert counter.invoke({"text": "b"})["n"] == 2


def test_the_proposal_leg_reports_each_step_and_the_round_trip() -> None:
    report = bench.run_proposals(2)
    assert report["proposal_rounds"] == 2
    assert {"proposal_propose_p50_ms", "proposal_review_p50_ms", "proposal_qualify_p50_ms",
            "proposal_activate_p50_ms", "proposal_round_trip_p50_ms",
            "proposal_round_trip_p95_ms"} <= report.keys()
