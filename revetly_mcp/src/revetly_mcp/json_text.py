"""A payload as indented JSON text, the bytes ``revetly … --json`` prints, at C speed.

Python's ``json`` has no C encoder for ``indent``: a 28 kB search answer took ~0.22 ms through the
pure-Python one against ~0.10 ms for the C encoder's compact text re-indented by msgspec
(bench/README.md, decisions/0038). msgspec's ``format`` changes only the whitespace between
tokens, so numbers and strings keep the bytes ``json.dumps`` wrote.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

INDENT = 2


def indented_json(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte: the C encoder's compact
    text re-indented; the pure-Python encoder for what msgspec cannot read (NaN, a lone
    surrogate), so the answer is the same whatever the value holds."""
    compact = json.dumps(value, ensure_ascii=False)
    try:
        return msgspec.json.format(compact, indent=INDENT)
    except (msgspec.DecodeError, UnicodeError):
        return json.dumps(value, indent=INDENT, ensure_ascii=False)
