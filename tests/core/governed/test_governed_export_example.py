"""The export-and-forget example runs as documented, in its own process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "governed_export.py"


def test_the_export_example_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path / "demo")], capture_output=True,
                          text=True, timeout=120, check=True)
    summary = json.loads(done.stdout)
    assert summary["verification"] == "verified_success"
    assert summary["exported"] is True
    assert summary["stranger_key"] == "export_unreadable"
    assert summary["forgotten"] == {"document_records": 1, "receipts": 1, "outcomes": 1}
    assert summary["hits_after_forget"] == 0
