"""render_answer: what an approval says it wrote, in the instance or in a Backlog.md project."""

from __future__ import annotations

from typing import Any

from revetly_cli.render_writes import render_answer
from rich.console import Console

BASE: dict[str, Any] = {"review_id": "REV-1", "status": "applied", "wrote": True,
                        "artifact_id": "BACK-29", "answered_now": True}


def _printed(payload: dict[str, Any]) -> str:
    console = Console(record=True, width=200)
    render_answer(console, payload)  # type: ignore[arg-type]
    return console.export_text()


def test_an_approval_into_the_instance_names_its_commit() -> None:
    text = _printed({**BASE, "path": "backlog/STORY-0001.md", "commit": "a" * 40})
    assert "in commit aaaaaaaaaaaa" in text


def test_an_approval_into_a_backlog_md_project_names_the_source_not_a_commit() -> None:
    text = _printed({**BASE, "path": "backlog/tasks/back-29 - X.md", "commit": None,
                     "source": "backlog-md/tally"})
    assert "into backlog-md/tally, left for its team to commit" in text
    assert "commit None" not in text
