"""The dashboard example runs as documented: the owner's screen, a viewer refused, an approval."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "governed_dashboard.py"


def test_the_dashboard_example_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path / "demo")], capture_output=True,
                          text=True, timeout=180, check=True)
    summary = json.loads(done.stdout)
    assert summary["counts"] == {"scheduled": 3, "observed": 2, "missing": 1, "succeeded": 1,
                                 "failed": 1}
    assert summary["usage_states"]["usd_micros"] == "missing"  # its one record left it unknown
    assert summary["usage_states"]["input_tokens"] == "complete"
    assert summary["proposal"] == {"status": "pending_review", "review_open": True}
    assert summary["viewer_sees_proposals"] is False and summary["viewer_approval"] == "not-owner"
    assert summary["owner_approval"] == "approved"
    assert summary["after"]["status"] == "approved" and summary["after"]["controls"] == ["revoke"]
    assert "diagnostic and always inconclusive" in summary["after"]["activation"]
