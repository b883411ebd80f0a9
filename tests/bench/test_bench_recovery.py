"""bench/bench_recovery.py runs and reports every figure (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

from tests.support.scripts import load_script

bench = load_script("revetly_bench_recovery",
                    Path(__file__).resolve().parents[2] / "bench" / "bench_recovery.py")


def test_the_gate_leg_reports_the_gate_beside_authorize_and_report(tmp_path: Path) -> None:
    report = bench.gate_leg(tmp_path, 3)
    assert {"gate", "authorize_with_gate", "report_outcome", "gate_after_adoption",
            "reconcile_after_restore_ms"} <= report.keys()
    assert report["gate"]["n"] == report["report_outcome"]["n"] == 3


def test_the_rotation_leg_rotates_a_vault_of_n_partitions(tmp_path: Path) -> None:
    report = bench.rotation_leg(tmp_path, 4)
    assert report["partitions"] == 4
    assert {"rotate_master_key_ms", "open_after_rotation_ms"} <= report.keys()
