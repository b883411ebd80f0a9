"""The proposals example runs as documented and shows each step of the lifecycle."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "governed_proposals.py"


def test_the_proposals_example_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path / "demo")], capture_output=True,
                          text=True, timeout=180, check=True)
    summary = json.loads(done.stdout)
    assert summary["receipt_status"] == "pending_review" and summary["retry_same_receipt"] is True
    assert summary["review_listed_by_engine"] == [True]
    assert summary["review"] == "approved"
    assert summary["diagnostic_verdict"] == "inconclusive"
    assert summary["attempts_charged"] == 2
    assert summary["activated_generation"] == 1
    assert summary["decisions"] == {"large, no reason": "deny", "large, reason": "needs_approval",
                                    "small": "allow", "large, reason, approved": "allow"}
    assert summary["rollback_after_change"] == "activation-checks-failed"
    assert summary["generations"] == ["active", "shadow"]
