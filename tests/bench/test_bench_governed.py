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
