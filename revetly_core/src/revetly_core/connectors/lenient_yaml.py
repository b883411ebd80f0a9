"""Frontmatter read leniently: strict YAML first, then the repairs whose meaning is clear.

Tools other than Revetly write frontmatter that strict loaders reject (an unquoted value that
starts with ``@`` or a backtick is the common case). Each repair is reported as an assumption
so ``revetly check`` can name the file and say what was read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from revetly_core.markdown.frontmatter import FrontmatterError, frontmatter_block
from revetly_core.markdown.safe_yaml import YamlRefused, load_yaml

_RESERVED_START = re.compile(r"^(\s*(?:-\s+)?[A-Za-z_][\w-]*:\s+|\s*-\s+)([@`].*?)\s*$")
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*):\s*(.*?)\s*$")
_ITEM_LINE = re.compile(r"^\s+-\s+(.*?)\s*$|^-\s+(.*?)\s*$")


@dataclass
class LenientFrontmatter:
    """A file split into frontmatter and body, with what had to be assumed to read it."""

    data: dict[str, Any]
    body: str
    assumed: list[str] = field(default_factory=list)
    present: bool = True


def quote_reserved(block: str) -> tuple[str, list[str]]:
    """Quote every value that starts with a character YAML reserves (``@``, backtick)."""
    out: list[str] = []
    fixed: list[str] = []
    for line in block.splitlines():
        m = _RESERVED_START.match(line)
        if m:
            value = m.group(2)
            out.append(m.group(1) + "'" + value.replace("'", "''") + "'")
            fixed.append(value)
        else:
            out.append(line)
    return "\n".join(out) + "\n", fixed


def line_pairs(block: str) -> dict[str, Any]:
    """The last resort: ``key: value`` lines and ``- item`` lists under them, as text."""
    data: dict[str, Any] = {}
    current: str | None = None
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _KEY_LINE.match(line)
        if m and not line.startswith((" ", "\t")):
            current = m.group(1)
            value = m.group(2).strip()
            if value.startswith("[") and value.endswith("]"):
                data[current] = [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
            else:
                data[current] = _unquote(value) if value else []
            continue
        item = _ITEM_LINE.match(line)
        if item and current is not None:
            prior = data.get(current)
            items = prior if isinstance(prior, list) else ([] if prior in ("", None) else [prior])
            items.append(_unquote(item.group(1) or item.group(2) or ""))
            data[current] = items
    return data


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def _load(block: str) -> Any:
    """The safe loader; only a syntax error is left for the repairs to try."""
    try:
        return load_yaml(block, first_line=2)
    except YamlRefused as exc:
        if exc.code == "bad-yaml":
            raise
        raise FrontmatterError(f"frontmatter refused: {exc}", exc.code) from None


def read_lenient(text: str) -> LenientFrontmatter:
    """Split a markdown file; repair frontmatter a strict loader rejects, saying how."""
    try:
        found = frontmatter_block(text)
    except FrontmatterError as exc:  # never closed: these sources name it bad-yaml
        raise FrontmatterError(str(exc), "bad-yaml") from None
    if found is None:
        body = text[1:] if text.startswith("\ufeff") else text
        return LenientFrontmatter({}, body, ["the file has no '---' frontmatter block"], False)
    block, body = found
    assumed: list[str] = []
    try:
        data = _load(block)
    except YamlRefused:
        quoted, fixed = quote_reserved(block)
        try:
            data = _load(quoted) if fixed else None
            if data is None:
                raise YamlRefused("bad-yaml", "no repair")
            assumed.append("frontmatter is not strict YAML: read "
                           + ", ".join(repr(v) for v in fixed) + " as quoted text")
        except YamlRefused:
            data = line_pairs(block)
            if not data:
                raise FrontmatterError("frontmatter is not valid YAML and holds no "
                                       "'key: value' lines") from None
            assumed.append("frontmatter is not valid YAML: read its 'key: value' lines as text")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter is not a mapping of keys to values")
    return LenientFrontmatter(data, body, assumed)


def decode_lenient(data: bytes) -> tuple[str, str | None]:
    """Bytes as text: UTF-8, else Latin-1 (every byte is a character) with the assumption said."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("latin-1"), (f"not UTF-8 text (byte {exc.start}): read as Latin-1")
