"""The guarded-execution example runs as documented and shows each promise of the dispatcher."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "governed_guarded.py"


def test_the_guarded_example_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path / "demo")], capture_output=True,
                          text=True, timeout=120, check=True)
    summary = json.loads(done.stdout)
    assert summary["first"] == {"status": "acknowledged", "result": {"ticket": "T-0001"}}
    assert summary["retry_replayed"] is True
    assert summary["lost_acknowledgement"] == "effect_uncertain"
    assert summary["new_key_while_uncertain"] == "execution_held"
    assert summary["verification"] == "verified_success"
    assert summary["reconciled"] == {"terminal_status": "succeeded", "task_result": "succeeded"}
    assert summary["tickets_in_journal"] == ["T-0001", "T-0002", "T-0003"]  # none twice
    assert summary["usage_usd_micros"] == 3100  # the retried usage record counted once
