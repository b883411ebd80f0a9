"""The rendered tables at 80 and 160 columns, pinned as snapshots (REVETLY_SNAPSHOTS=update
rewrites them), and the rules the CLI keeps at any width."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from revetly_cli import render

SNAPSHOTS = Path(__file__).parent / "snapshots"
WIDTHS = (80, 160)
SHA = "bf22988860e849cb0123456789abcdef01234567"
LONG_PATH = "backlog/tasks/back-4.10 - Make the importer resumable after a crash mid-file.md"


def _rendered(fn: Any, payload: dict[str, Any], width: int, **kw: Any) -> str:
    console = Console(width=width, record=True, force_terminal=False, color_system=None)
    fn(console, payload, **kw)
    return console.export_text()


def _snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("REVETLY_SNAPSHOTS") == "update" or not path.exists():
        path.write_text(text)
    assert text == path.read_text(), f"{name} changed: REVETLY_SNAPSHOTS=update to accept"


def search_payload() -> dict[str, Any]:
    rows = [{"artifact_id": f"BACK-4.{i}", "artifact_type": "task", "status": "ready",
             "summary": f"Task {i} title — " + "a long body of prose that goes on " * 8}
            for i in range(1, 10)]
    rows.append({"artifact_id": SHA, "artifact_type": "commit",
                 "summary": "feat(import): resume after a crash"})
    rows[2]["superseded_by"] = ["DECISION-7"]
    return {"query": "importer resume", "artifacts": rows, "facts": [], "passages": []}


def backlog_payload() -> dict[str, Any]:
    items = [{"artifact_id": f"BACK-4.{n}", "artifact_type": "task", "status": "in-progress",
              "title": f"Make the importer resumable, part {n}, with a title long enough to "
                       "need the width", "parent": "BACK-4",
              "source_updated_at": "2026-03-01T10:15:00+02:00"} for n in (2, 10)]
    return {"total": 2, "items": items}


def check_payload() -> dict[str, Any]:
    return {"ok": False, "files_checked": 3, "artifacts": 2,
            "problems": [{"path": LONG_PATH, "code": "bad-frontmatter",
                          "detail": "the frontmatter is not YAML: a colon in the title"}],
            "dangling_links": []}


def artifact_payload() -> dict[str, Any]:
    body = ("Resume an import.\n\n## Acceptance Criteria\n\n- [x] #1 Resumes at the last row\n"
            "- [ ] #2 Says how many rows it skipped\n")
    return {"artifact_id": "BACK-4.10", "title": "Make the importer resumable",
            "artifact_type": "task", "status": "in-progress", "body": body,
            "source_updated_at": "2026-03-01T10:15:00+02:00",
            "acceptance_criteria": ["Resumes at the last row", "Says how many rows it skipped"],
            "criteria_checked": [True, False], "declared_links": {}}


@pytest.mark.parametrize("width", WIDTHS)
def test_search_is_one_line_per_row(width: int) -> None:
    text = _rendered(render.render_search, search_payload(), width)
    _snapshot(f"search-{width}", text)
    rows = [line for line in text.splitlines() if "BACK-4." in line or SHA[:16] in line]
    assert len(rows) == 10  # one line each, whatever the width
    assert all(len(line) <= width for line in text.splitlines())
    assert SHA[:16] in text and SHA[:17] not in text
    assert "BACK-4.9" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_search_wide_prints_each_summary_whole(width: int) -> None:
    text = _rendered(render.render_search, search_payload(), width, wide=True)
    joined = " ".join(text.split())
    assert "a long body of prose that goes on a long body" in joined


@pytest.mark.parametrize("width", WIDTHS)
def test_backlog_gives_the_title_the_width(width: int) -> None:
    text = _rendered(render.render_backlog, backlog_payload(), width)
    _snapshot(f"backlog-{width}", text)
    assert text.index("BACK-4.2 ") < text.index("BACK-4.10")
    assert "2026-03-01" in text  # the date in UTC (08:15 UTC that day)
    if width == 160:
        assert any("with a title long enough to need the width" in line
                   for line in text.splitlines())


@pytest.mark.parametrize("width", WIDTHS)
def test_check_never_cuts_a_path(width: int) -> None:
    text = _rendered(render.render_check, check_payload(), width)
    _snapshot(f"check-{width}", text)
    assert LONG_PATH in "".join(text.splitlines()) or LONG_PATH in text


@pytest.mark.parametrize("width", WIDTHS)
def test_criteria_print_once_with_their_checked_state(width: int) -> None:
    text = _rendered(render.render_artifact, artifact_payload(), width)
    _snapshot(f"artifact-{width}", text)
    assert text.count("Resumes at the last row") == 1
    assert "[x] Resumes at the last row" in text
    assert "[ ] Says how many rows it skipped" in text
    assert "updated 2026-03-01 08:15 UTC" in text


def test_a_read_budget_cut_says_how_to_lift_it() -> None:
    payload = {**search_payload(), "truncated": {
        "reason": "read-budget", "total": 40, "listed": 10,
        "note": "cut to fit the 32768-byte read budget"}}
    text = _rendered(render.render_search, payload, 160)
    assert "cut to fit the 32768-byte read budget: raise it with REVETLY_READ_BUDGET=BYTES" in text
