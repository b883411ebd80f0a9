"""The common shape of a frontmatter block, read line by line without building YAML nodes.

Most blocks are top-level ``key: value`` lines whose values are plain or quoted one-line
scalars, flow lists of simple items, or block lists of such scalars. :func:`plain_block`
reads exactly that shape and gives what :func:`safe_yaml.load_yaml` gives for it; for any
line outside the shape it answers None, and the caller loads the block with PyYAML, so every
value, failure and message outside the shape is PyYAML's own. Scalars are typed by PyYAML's
own resolver and built by its own constructors (``yes``, ``0x1F``, ``1:20`` and dates type as
they would), and a scalar that fails to build leaves the block to PyYAML too.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import yaml

from revetly_core.markdown.safe_yaml import YamlRefused, json_ready

_SHAPE_CHARS = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
"""A character the shape leaves to PyYAML: tabs, carriage returns, YAML's other line breaks
(NEL, LS, PS), a byte-order mark, controls and lone surrogates."""

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]{0,127}):(?: +(.*))?")
"""``key:`` at the start of a line, then nothing or spaces and the value."""

_ITEM_LINE = re.compile(r"( +)- +(.+)")
"""An indented ``- value`` item of a block list."""

_FLOW_ITEM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./+-]*(?: [A-Za-z0-9_./+-]+)*")
"""A plain item of a flow list: no indicator, quote, comma or colon, single spaces inside."""

_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
"""Characters that open something other than a plain scalar (or may) at a value's start."""

_BUILT_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float",
                                                           "timestamp"))
_STR = "tag:yaml.org,2002:str"


class _OutOfShape(Exception):
    """The block is not of the common shape: PyYAML reads it."""


@lru_cache(maxsize=1)
def _typing_loader() -> Any:
    """One loader whose resolver types plain scalars and whose constructors build them (the
    same classes CSafeLoader uses: Resolver and SafeConstructor)."""
    return yaml.SafeLoader("")


@lru_cache(maxsize=1)
def _typed_openings() -> frozenset[str] | None:
    """The first characters PyYAML's implicit resolvers are registered for (a plain scalar
    opening with any other is text); None when one is registered for every character, or a
    path resolver is registered."""
    loader = _typing_loader()
    resolvers = loader.yaml_implicit_resolvers
    if None in resolvers or loader.yaml_path_resolvers:
        return None
    return frozenset(resolvers)


def plain_scalar(text: str) -> Any:
    """The JSON-ready value of a one-line plain scalar, typed as PyYAML types it."""
    openings = _typed_openings()
    if openings is not None and text and text[0] not in openings:
        return text  # no implicit resolver looks at it: PyYAML's default, text
    loader = _typing_loader()
    tag = loader.resolve(yaml.ScalarNode, text, (True, False))
    if tag == _STR:
        return text
    if tag not in _BUILT_TAGS:
        raise _OutOfShape
    try:
        return json_ready(loader.yaml_constructors[tag](loader, yaml.ScalarNode(tag, text)))
    except (YamlRefused, ValueError, OverflowError, TypeError):
        raise _OutOfShape from None


def quoted_scalar(text: str) -> str | None:
    """The text of a one-line quoted scalar with nothing to unescape; None when not quoted."""
    quote = text[:1]
    if not quote or quote not in "\"'" or len(text) < 2 or text[-1] != quote:
        return None
    inner = text[1:-1]
    if quote in inner or "\\" in inner:
        raise _OutOfShape
    return inner


def block_scalar(text: str) -> Any:
    """A one-line value of a mapping or block list: quoted, or plain without comment, colon
    separator or opening indicator."""
    if not text:
        raise _OutOfShape
    quoted = quoted_scalar(text)
    if quoted is not None:
        return quoted
    if text[0] in _INDICATORS or "#" in text or ": " in text or text.endswith(":"):
        raise _OutOfShape
    return plain_scalar(text)


def flow_list(text: str) -> list[Any]:
    """A one-line ``[a, b]`` of plain items or quoted items without commas."""
    inner = text[1:-1]
    if not inner.strip(" "):
        return []
    items: list[Any] = []
    for part in inner.split(","):
        item = part.strip(" ")
        if not item:
            raise _OutOfShape
        quoted = quoted_scalar(item)
        if quoted is not None:
            items.append(quoted)
        elif _FLOW_ITEM.fullmatch(item):
            items.append(plain_scalar(item))
        else:
            raise _OutOfShape
    return items


def mapping_value(text: str) -> Any:
    """The value after ``key: ``: a flow list or a one-line scalar."""
    if text[0] == "[":
        if text[-1] != "]":
            raise _OutOfShape
        return flow_list(text)
    return block_scalar(text)


@lru_cache(maxsize=1024)
def plain_key(text: str) -> str:
    """A key as PyYAML types it; a key typed otherwise (``yes``, ``null``) is out of shape."""
    key = plain_scalar(text)
    if not isinstance(key, str):
        raise _OutOfShape
    return key


def _read(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    items: list[Any] | None = None  # the block list of the last empty-valued key, once begun
    empty_key: str | None = None  # the last key with nothing after its colon
    indent = 0
    for line in text.split("\n"):
        if not line.strip(" "):
            continue
        if line[0] == " ":
            item = _ITEM_LINE.fullmatch(line)
            if item is None or empty_key is None:
                raise _OutOfShape
            if items is None:
                items, indent = [], len(item.group(1))
                out[empty_key] = items
            elif len(item.group(1)) != indent:
                raise _OutOfShape
            items.append(block_scalar(item.group(2).rstrip(" ")))
            continue
        found = _KEY_LINE.fullmatch(line)
        if found is None:
            raise _OutOfShape
        key = plain_key(found.group(1))
        value = (found.group(2) or "").rstrip(" ")
        items, empty_key = None, None
        if value:
            out[key] = mapping_value(value)
        else:
            out[key] = None
            empty_key = key
    return out


def plain_block(text: str) -> dict[str, Any] | None:
    """``load_yaml(text)`` for a block of the common shape (a non-empty mapping of one-line
    values and block lists of them); None for any other block, which PyYAML reads."""
    if _SHAPE_CHARS.search(text):
        return None
    try:
        out = _read(text)
    except _OutOfShape:
        return None
    return out or None
