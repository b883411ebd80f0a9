"""Reading the fields of a tracker's JSON objects (an issue, a work item, a task): a field that
does not have the documented shape names itself in a :class:`BadItem`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class BadItem(ValueError):
    """A tracker object whose fields do not have the tracker's documented shapes."""


def field_text(raw: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    """The text of ``raw[key]``: ``""`` when absent and not ``required``, else BadItem naming
    the field unless it is text."""
    value = raw.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise BadItem(f"{key!r} is {type(value).__name__}, not text")
    return value
