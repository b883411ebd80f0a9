"""The fault-injection seam of the write path: named crash points a test arms to die there.

A test sets REVETLY_CRASH_AT to one point's name in a subprocess's environment; when the write
reaches that point the process ends with ``os._exit(CRASH_EXIT)``, as abruptly as kill -9 (no
``finally``, no atexit, no flush). Unarmed, a crash point is one environment lookup.
"""

from __future__ import annotations

import os

ENV_CRASH_AT = "REVETLY_CRASH_AT"
CRASH_EXIT = 86
"""The exit status of a process that died at an armed crash point."""

CRASH_POINTS = (
    "intent-temp-written",   # the intent's temp file is filled, not yet renamed into place
    "intent-recorded",       # the intent is durable; no instance file touched yet
    "file-temp-written",     # the first file's temp is filled, not yet renamed over the file
    "first-file-written",    # one of the write's files is in place, the others are not
    "files-written",         # every file is in place; nothing committed
    "commit-object-written",  # the commit object exists; no ref points at it
    "ref-locked",            # the branch ref's .lock is taken, as git holds it mid-update
    "committed",             # the branch points at the commit; the index is not refreshed
    "index-refreshed",       # the index holds the committed files
    "review-temp-written",   # the review record's temp is filled, not yet renamed
    "review-saved",          # the review record holds its answer
    "intent-cleared",        # the intent is gone: the write is complete, its answer not sent
)
"""Every point, in the order a write passes them (a write without files skips the middle)."""


def crash_point(name: str) -> None:
    """End the process here when a test armed this point; otherwise do nothing."""
    if os.environ.get(ENV_CRASH_AT) == name:
        os._exit(CRASH_EXIT)


def armed(name: str) -> bool:
    """Whether a test armed this point (for a point that must first set up what it leaves)."""
    return os.environ.get(ENV_CRASH_AT) == name
