"""The collector's pace during a full pass: raised inside, restored after, never switched on."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest
from revetly_core.ingest.collector import (
    PASS_YOUNG_THRESHOLD,
    fewer_collections,
    paced_threshold,
)


@pytest.fixture(autouse=True)
def default_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_the_young_threshold_is_raised_and_the_older_ones_kept() -> None:
    assert paced_threshold((700, 10, 10)) == (PASS_YOUNG_THRESHOLD, 10, 10)


def test_a_higher_threshold_the_host_chose_is_never_lowered() -> None:
    assert paced_threshold((10 * PASS_YOUNG_THRESHOLD, 5, 7)) == (10 * PASS_YOUNG_THRESHOLD, 5, 7)


def test_a_collector_switched_off_by_threshold_zero_stays_off() -> None:
    assert paced_threshold((0, 10, 10)) == (0, 10, 10)


def test_the_block_runs_at_the_pass_pace_and_the_process_pace_comes_back() -> None:
    with fewer_collections():
        assert gc.get_threshold() == (PASS_YOUNG_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_the_pace_comes_back_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("the pass failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_blocks_restore_the_process_pace_once_the_last_ends() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[tuple[int, int, int]] = []

    def first() -> None:
        with fewer_collections():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with fewer_collections():
        second_in.set()
        first_out.wait(5)
        seen.append(gc.get_threshold())  # the first block ended: this one still runs paced
    thread.join(5)
    assert seen == [(PASS_YOUNG_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)
