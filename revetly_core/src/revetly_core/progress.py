"""How far a long read has got: the callback type the pass reports through, and its silent default.

Its own module, so opening an engine (which names the type in its signatures) loads none of the
connectors' protocol and batch classes.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, int], None]
"""progress(phase, done, total): how far a long read has got."""


def no_progress(phase: str, done: int, total: int) -> None:
    """The default progress sink: says nothing."""
