"""The outside_backlog block as `revetly backlog` and `revetly status` print it."""

from __future__ import annotations

from typing import Any

from revetly_cli.render import render_backlog, render_status
from rich.console import Console

OUTSIDE = {"count": 2, "items": [
    {"artifact_id": "GH-3", "title": "Ask the vendor", "kind": "issue", "why": "untyped",
     "labels": ["question"]},
    {"artifact_id": "GH-4", "title": "Spike", "kind": "issue", "why": "unmapped",
     "native_type": "Spike"}]}


def _printed(render: Any, payload: dict[str, Any]) -> str:
    console = Console(record=True, width=200)
    render(console, payload)
    return console.export_text()


def test_backlog_lists_each_outside_row_under_the_table() -> None:
    text = _printed(render_backlog, {"items": [], "total": 0, "limit": 50,
                                     "outside_backlog": OUTSIDE})
    assert "Outside the backlog: 2 items no type map covers" in text
    assert "GH-3 issue, untyped: Ask the vendor [question]" in text
    assert "GH-4 issue, unmapped (Spike): Spike" in text


def test_an_empty_block_prints_nothing() -> None:
    text = _printed(render_backlog, {"items": [], "total": 0, "limit": 50,
                                     "outside_backlog": {"count": 0, "items": []}})
    assert "Outside" not in text


def test_status_prints_the_count_and_the_fix() -> None:
    health = {"instance": "acme", "corpus_revision": 1, "last_pass": None, "sources": [],
              "counts": {"artifacts": 0, "links": 0, "by_type": {}, "by_status": {},
                         "deleted": 0, "withheld": 0},
              "problems": 0, "index": {"backend": "fts5", "revision": 1, "current": True},
              "outside_backlog": {"count": 3, "untyped": 2, "unmapped": 1, "fix": "set a type"}}
    text = _printed(render_status, health)
    assert "outside the backlog: 3 items (2 untyped, 1 unmapped); fix: set a type" in text
