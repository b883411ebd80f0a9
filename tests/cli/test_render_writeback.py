"""status-set's human output names what a write adapter landed on the tracker and what not."""

from __future__ import annotations

from revetly_cli.render_writes import render_status_set
from rich.console import Console


def _text(payload: dict[str, object]) -> str:
    console = Console(record=True, width=200)
    render_status_set(console, payload)  # type: ignore[arg-type]
    return console.export_text()


def test_a_write_back_names_the_tracker_the_note_and_what_did_not_land() -> None:
    out = _text({
        "artifact_id": "GH-1", "previous_status": "ready", "status": "in-progress",
        "commit": None, "claim": None,
        "claim_not_recorded": "the claim note did not land on github/app (dropped)",
        "writeback": {"target": "github/app", "landed": [], "not_landed": [
            {"step": "claim", "code": "disconnected", "detail": "the connection failed"}]},
    })
    assert "GH-1: ready -> in-progress (on github/app)" in out
    assert "claim not recorded: the claim note did not land" in out
    assert "not landed: claim (disconnected: the connection failed); the next status-set" in out


def test_a_landed_note_is_shown_with_its_link() -> None:
    out = _text({"artifact_id": "GH-1", "previous_status": "in-progress", "status": "done",
                 "commit": "abcdef0123456789", "claim": None,
                 "delivery": {"artifact_id": "DEL-0001", "path": "records/DEL-0001.md"},
                 "delivery_note": {"action": "posted", "url": "https://x/1#c"},
                 "writeback": {"target": "github/app", "landed": [], "not_landed": []}})
    assert "(commit abcdef012345)" in out and "delivery note posted: https://x/1#c" in out
