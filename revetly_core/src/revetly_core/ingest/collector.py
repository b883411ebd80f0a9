"""The cyclic garbage collector's pace while a full pass runs.

A full pass makes millions of short-lived objects while it holds a few million long-lived ones
(ids, titles, history entries), so the collector's default pace (a young collection every 700
net allocations) re-examines that live heap over and over: about 3 s of a 72 s pass at 100k,
2 s of it in full collections that find almost nothing. The pass creates few reference cycles,
so collecting young objects less often frees the same memory a little later, and the pass
already collects once before the keyword index is built.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

PASS_YOUNG_THRESHOLD = 50_000
"""Net allocations between young collections while a full pass runs (Python's default: 700)."""

_lock = threading.Lock()
_held = 0
_saved: tuple[int, int, int] | None = None


def paced_threshold(current: tuple[int, int, int]) -> tuple[int, int, int]:
    """The thresholds a full pass runs with: the young one raised to PASS_YOUNG_THRESHOLD (never
    lowered), the older ones kept; a collector switched off by threshold 0 stays off."""
    young, middle, old = current
    if young == 0:
        return current
    return max(young, PASS_YOUNG_THRESHOLD), middle, old


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the pass's pace, then restore the thresholds the process had (once
    the last of any overlapping blocks, e.g. passes of two instances in one server, ends)."""
    global _held, _saved
    with _lock:
        if _held == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(*paced_threshold(_saved))
        _held += 1
    try:
        yield
    finally:
        with _lock:
            _held -= 1
            if _held == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None
