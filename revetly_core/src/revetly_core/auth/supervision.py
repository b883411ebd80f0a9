"""The supervisor's rules: when a stopped endpoint is restarted, and after how long."""

from __future__ import annotations

BACKOFF_FIRST = 1.0
BACKOFF_MAX = 30.0
STEADY_AFTER = 60.0
"""Seconds of healthy running after which a crash counts as the first again."""
REFUSED_EXIT = 2
"""The endpoint's exit status for a startup refusal (a setting to fix, not a crash)."""


def backoff_delay(attempt: int) -> float:
    """Seconds before restart number `attempt` (1-based): 1, 2, 4, … capped at 30."""
    return float(min(BACKOFF_FIRST * 2.0 ** max(attempt - 1, 0), BACKOFF_MAX))


def should_restart(exit_code: int, stopping: bool) -> bool:
    """Restart after a crash; never after a refusal (exit 2), a clean exit, or a stop asked."""
    return not stopping and exit_code not in (0, REFUSED_EXIT)


def next_attempt(attempt: int, ran_for: float) -> int:
    """The restart count after a run of `ran_for` seconds (a steady run resets it)."""
    return 1 if ran_for >= STEADY_AFTER else attempt + 1
