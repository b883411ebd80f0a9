"""examples/api_usage.py runs as docs/python-api.md shows it, on the acme example instance."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVETLY_")}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300,
                          check=True, env=env)
    return done.stdout


def test_the_api_tour_reads_then_writes_the_acme_instance(tmp_path: Path) -> None:
    _run(str(EXAMPLES / "build_acme.py"), str(tmp_path), "--force")
    acme = tmp_path / "acme"
    lines = _run(str(EXAMPLES / "api_usage.py"), str(acme)).splitlines()

    head = re.fullmatch(r"corpus revision (\d+), (\d+) artifacts", lines[0])
    assert head and int(head.group(2)) > 100
    rows = [line.split()[0] for line in lines[1:] if line.startswith("  ") and not
            line.lstrip().startswith(('"', "}", "]"))]
    start = lines.index("{")
    end = lines.index("}", start)
    brief = json.loads("\n".join(lines[start:end + 1]))
    assert rows[0] == brief["artifact_id"] and 1 <= len(rows) <= 3
    assert set(brief) == {"artifact_id", "status", "declared_links"}
    assert re.fullmatch(r"\d+ items in progress; first page: [A-Z]+-\d+(, [A-Z]+-\d+)*",
                        lines[end + 1])
    assert lines[end + 2] == "refused: not-found"

    tour = _run(str(EXAMPLES / "api_usage.py"), str(acme), "--write").splitlines()
    writes = tour[tour.index("refused: not-found") + 1:]
    assert re.fullmatch(r"draft REV-[0-9a-f]{16}: parked \(no gate declared\)", writes[0])
    assert writes[1] == "1 review(s) waiting"
    assert writes[2] == "answered at the terminal: resolved, enforced True"
    note = re.fullmatch(r"recorded (CONV-\d+) in ([0-9a-f]{12})", writes[3])
    assert note is not None
    assert (acme / "notes" / f"{note.group(1)}.md").is_file()
    assert writes[4].startswith(lines[end + 1].split(": ")[1].split(", ")[0] + ": claim ")
    assert writes[-1] == "capture: landed"
