"""The copyable example runs as documented and shows each promise of the layer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "governed_quickstart.py"


def test_the_quickstart_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path / "demo")], capture_output=True,
                          text=True, timeout=120, check=True)
    summary = json.loads(done.stdout)
    assert summary["handbook_hits"] == ["Handbook, leave §1", "Handbook, leave §2"]
    assert summary["inspected"] == "Employees accrue two days of paid leave per month of service."
    assert summary["statute_hits"] == ["Working Time Act, art. 3"]
    assert summary["conflicting_key_reuse"] == "idempotency_conflict"
    assert summary["outcome_verification"] == "unverified"
    assert summary["quality"]["rates"] == {"observed": 1.0, "success": 1.0}
