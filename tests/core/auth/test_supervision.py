"""The supervisor's restart rules."""

from __future__ import annotations

from revetly_core.auth import backoff_delay, next_attempt, should_restart


def test_the_backoff_doubles_from_one_second_to_thirty() -> None:
    assert [backoff_delay(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]


def test_a_crash_restarts_and_a_refusal_a_clean_exit_or_a_stop_do_not() -> None:
    assert should_restart(1, stopping=False) and should_restart(-9, stopping=False)
    assert not should_restart(2, stopping=False)
    assert not should_restart(0, stopping=False)
    assert not should_restart(-15, stopping=True)


def test_a_steady_run_resets_the_count() -> None:
    assert next_attempt(5, ran_for=61.0) == 1
    assert next_attempt(2, ran_for=3.0) == 3
