"""render_text: untrusted text made safe for a terminal, in one place every renderer uses."""

from __future__ import annotations

from revetly_cli.output import refusal_line
from revetly_cli.render_text import terminal_payload, untrusted, visible


def test_control_characters_are_made_visible() -> None:
    assert visible("a\x1b]0;t\x07b") == "a\\x1b]0;t\\x07b"
    assert visible("\x9b2J") == "\\x9b2J"  # a C1 CSI
    assert visible("x\u202ey") == "x\\u202ey"  # a bidi override
    assert visible("tab\tand\nnewline") == "tab\tand\nnewline"


def test_visible_is_idempotent() -> None:
    once = visible("\x1b[2J")
    assert visible(once) == once


def test_untrusted_escapes_rich_markup_too() -> None:
    assert untrusted("[link=https://e]x[/link]\x1b") == "\\[link=https://e]x\\[/link]\\x1b"


def test_terminal_payload_reaches_every_string() -> None:
    payload = {"a": ["\x1b", {"b\x07": "\x1b"}], "n": 1, "none": None}
    assert terminal_payload(payload) == {"a": ["\\x1b", {"b\\x07": "\\x1b"}], "n": 1, "none": None}


def test_a_refusal_line_shows_controls() -> None:
    line = refusal_line({"refusal": {"code": "x", "detail": "bad \x1b[2J", "fix": "f\x07"}})
    assert "\x1b" not in line and "\x07" not in line and "\\x1b[2J" in line
