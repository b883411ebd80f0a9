"""Limits on what a write accepts: hostile ids and oversized bodies are refused before any path."""

from __future__ import annotations

import re

from revetly_core.refusal import Refusal

MAX_ID_CHARS = 64
"""An artifact id longer than this is refused (ids name files; nothing real is this long)."""
MAX_TITLE_CHARS = 300
MAX_BODY_CHARS = 100_000
"""A description, body or reason over this many characters is refused naming the limit."""
MAX_CRITERIA = 100
MAX_CRITERION_CHARS = 2_000
MAX_LIST_ITEMS = 100
"""related_ids, supersedes, revises, decisions, verdicts: at most this many entries each."""

_ARTIFACT_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*-[0-9]+")
_HOSTILE = ("/", "\\", "..", "\x00")


def check_artifact_id(value: object, field: str = "artifact_id") -> str:
    """An id is FAMILY-NUMBER, short, with no separator, '..' or NUL; else refused by name."""
    if not isinstance(value, str) or not value.strip():
        raise Refusal("bad-id", f"{field} must be an id such as STORY-0001",
                      f"pass {field} as FAMILY-NUMBER", {"field": field})
    if len(value) > MAX_ID_CHARS:
        raise Refusal("bad-id", f"{field} is {len(value)} characters, over the {MAX_ID_CHARS} "
                      "an id may have", f"pass {field} as FAMILY-NUMBER",
                      {"field": field, "limit": MAX_ID_CHARS})
    if any(h in value for h in _HOSTILE):
        raise Refusal("bad-id", f"{field} {value!r} holds a path separator, '..' or NUL",
                      f"pass {field} as FAMILY-NUMBER", {"field": field})
    if not _ARTIFACT_ID.fullmatch(value.strip()):
        raise Refusal("bad-id", f"{field} {value!r} is not FAMILY-NUMBER",
                      f"pass {field} as FAMILY-NUMBER, e.g. STORY-0001", {"field": field})
    return value.strip()


def check_text(value: object, field: str, limit: int = MAX_BODY_CHARS, *,
               required: bool = True) -> str:
    """Text fields are strings under their limit; an oversized one is refused naming the limit."""
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise Refusal("bad-argument", f"{field} must be text", f"pass {field} as a string",
                      {"field": field})
    if required and not value.strip():
        raise Refusal("bad-argument", f"{field} is empty", f"pass a non-empty {field}",
                      {"field": field})
    if len(value) > limit:
        raise Refusal("too-large", f"{field} is {len(value)} characters, over the limit of "
                      f"{limit}", f"shorten {field} to at most {limit} characters",
                      {"field": field, "limit": limit})
    if "\x00" in value:
        raise Refusal("bad-argument", f"{field} holds a NUL character",
                      f"remove the NUL from {field}", {"field": field})
    return value


def check_list(value: object, field: str, limit: int = MAX_LIST_ITEMS) -> list[object]:
    """A list argument: None is empty; more than the limit is refused naming it."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise Refusal("bad-argument", f"{field} must be a list", f"pass {field} as a list",
                      {"field": field})
    if len(value) > limit:
        raise Refusal("too-large", f"{field} has {len(value)} entries, over the limit of {limit}",
                      f"pass at most {limit} entries in {field}", {"field": field, "limit": limit})
    return list(value)


def check_criteria(value: object) -> list[str]:
    """acceptance_criteria: a list of non-empty one-line texts, each under its limit."""
    items = check_list(value, "acceptance_criteria", MAX_CRITERIA)
    out: list[str] = []
    for i, item in enumerate(items, 1):
        text = check_text(item, f"acceptance_criteria[{i}]", MAX_CRITERION_CHARS)
        out.append(" ".join(text.split()))
    return out
