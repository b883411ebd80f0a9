"""Text from files on a terminal: every control character made visible, rich markup made inert.

Titles, bodies, paths and details come from files anyone can commit. Printed raw, a title
holding ``ESC ] 0 ; … BEL`` retitles the terminal, ``ESC [ 2 J`` clears it, and an OSC 8
sequence hides a link. Every human rendering passes its payload through
:func:`terminal_payload` and each untrusted field through :func:`untrusted`; ``--json``
prints the payload unchanged.
"""

from __future__ import annotations

import re
from typing import Any

_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 (but tab and newline), DEL, C1
    "\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"  # bidi, invisible
)


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """Text with every control and invisible formatting character written as ``\\xNN`` or
    ``\\uNNNN``; tab and newline are kept."""
    return _CONTROLS.sub(_shown, text)


def untrusted(value: object) -> str:
    """The one way a renderer prints text from a file: controls visible, rich markup escaped."""
    from rich.markup import escape

    return escape(visible(str(value)))


def terminal_payload(value: Any) -> Any:
    """A payload with :func:`visible` applied to every string in it (keys too), for a renderer."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {terminal_payload(k): terminal_payload(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [terminal_payload(v) for v in value]
    return value
