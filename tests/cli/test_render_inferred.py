"""`revetly sync` on a full instance prints the inferred step: episodes and the provider's cost,
and says so when the inferred half is degraded."""

from __future__ import annotations

from rich.console import Console

from revetly_cli import render

STEP = {"episodes": 3, "kept": 1, "removed": 0, "pending": 2, "rebuilt": False,
        "model_calls": 40, "prompt_tokens": 1200, "completion_tokens": 90}


def rendered(step: dict[str, object]) -> str:
    console = Console(width=160, record=True, force_terminal=False, color_system=None)
    render.render_inferred_step(console, step)
    return console.export_text()


def test_the_inferred_step_shows_episodes_and_cost() -> None:
    text = rendered(STEP)
    assert "3 episodes extracted, 1 kept, 0 removed, 2 pending" in text
    assert "40 model calls, 1200 prompt + 90 completion tokens" in text
    assert "degraded" not in text


def test_a_degraded_step_names_the_error() -> None:
    text = rendered({**STEP, "degraded": {"error": "STORY-1: 503 fake outage", "note": "x"}})
    assert "inferred half degraded: STORY-1: 503 fake outage" in text
