"""Splitting a markdown file into its YAML frontmatter and its body."""

from __future__ import annotations

import datetime as dt
from typing import Any

import yaml

try:  # the C loader is an order of magnitude faster on large instances
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


class FrontmatterError(ValueError):
    """The file's frontmatter block is missing or is not a YAML mapping."""


def _plain(value: Any) -> Any:
    """YAML values made JSON-ready: dates become ISO strings, nested values likewise."""
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """Return (frontmatter mapping, body) of a markdown file that opens with a --- block."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        raise FrontmatterError("the file does not open with a '---' frontmatter block")
    lines = text.splitlines(keepends=True)
    end = None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") in ("---", "..."):
            end = i
            break
    if end is None:
        raise FrontmatterError("the frontmatter block is never closed with '---'")
    block = "".join(lines[1:end])
    body = "".join(lines[end + 1 :])
    try:
        data = yaml.load(block, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (frontmatter line {mark.line + 2})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(f"frontmatter is not valid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter is not a mapping of keys to values")
    return _plain(data), body
