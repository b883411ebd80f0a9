"""Hidden markers: how a note Revetly posted on a tracker is found again, so a retry edits it
in place instead of posting it twice. A marker is an HTML comment (trackers render Markdown,
so a reader never sees it) naming what the note is and the item or record it is for."""

from __future__ import annotations

MARKER_PREFIX = "<!-- revetly:"


def claim_marker(artifact_id: str) -> str:
    """The marker of an item's one claim note: ``<!-- revetly:claim GH-12 -->``."""
    return f"{MARKER_PREFIX}claim {artifact_id} -->"


def delivery_marker(delivery_id: str) -> str:
    """The marker of a delivery record's note: ``<!-- revetly:delivery DEL-0003 -->``."""
    return f"{MARKER_PREFIX}delivery {delivery_id} -->"


def carries(body: object, marker: str) -> bool:
    """Whether a note's body carries the marker (on a line of its own, as Revetly writes it)."""
    return isinstance(body, str) and any(line.strip() == marker for line in body.splitlines())


def marked(text: str, marker: str) -> str:
    """The note's text with its marker as the last line."""
    return f"{text.rstrip()}\n\n{marker}\n"
