"""A markdown file's YAML frontmatter and its body: split on read, joined on write, one schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import ValidationError

from revetly_core.markdown.plain_block import plain_block
from revetly_core.markdown.safe_yaml import YamlRefused, load_yaml
from revetly_core.schema import Frontmatter, describe_error

try:  # the C dumper is several times faster, and writes are timed with their commit
    _Dumper: Any = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Dumper = yaml.SafeDumper


class FrontmatterError(ValueError):
    """The file's frontmatter block is missing, is not a YAML mapping, or holds a refused value.

    ``code`` is the problem code ``revetly check`` shows: ``no-frontmatter``, ``bad-yaml``,
    ``bad-value`` (a value JSON cannot hold) or ``yaml-bounds`` (nesting or aliases too large).
    """

    def __init__(self, detail: str, code: str = "bad-yaml") -> None:
        super().__init__(detail)
        self.code = code


def frontmatter_block(text: str) -> tuple[str, str] | None:
    """(YAML block, body) of a file that opens with a ``---`` block; None when it opens otherwise.

    Raises FrontmatterError when the block is never closed.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return None
    lines = text.splitlines(keepends=True)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") in ("---", "...")),
               None)
    if end is None:
        raise FrontmatterError("the frontmatter block is never closed with '---'",
                               "no-frontmatter")
    return "".join(lines[1:end]), "".join(lines[end + 1 :])


def load_mapping(block: str) -> dict[str, Any]:
    """A frontmatter block loaded by the one safe loader; it must be a mapping (or empty).
    A block of the common shape is read line by line (`plain_block`), to the same mapping."""
    plain = plain_block(block)
    if plain is not None:
        return plain
    try:
        data = load_yaml(block, first_line=2)
    except YamlRefused as exc:
        raise FrontmatterError(f"frontmatter is {exc}" if exc.code == "bad-yaml"
                               else f"frontmatter refused: {exc}", exc.code) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter is not a mapping of keys to values")
    return data


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """Return (frontmatter mapping, body) of a markdown file that opens with a --- block."""
    found = frontmatter_block(text)
    if found is None:
        raise FrontmatterError("the file does not open with a '---' frontmatter block",
                               "no-frontmatter")
    block, body = found
    return load_mapping(block), body


def check_writable(front: Mapping[str, Any]) -> None:
    """front fits the Frontmatter schema the read pass applies: a write never leaves a file its
    own read would refuse. Raises FrontmatterError (code ``schema``) naming the field."""
    try:
        Frontmatter.model_validate(dict(front))
    except ValidationError as exc:
        raise FrontmatterError(f"the frontmatter to write breaks the schema: {describe_error(exc)}",
                               "schema") from None


def join_frontmatter(front: Mapping[str, Any], body: str) -> str:
    """The markdown file a write leaves: front (checked by the read schema, keys in their
    order) as a --- block, a blank line, then the body."""
    check_writable(front)
    text = yaml.dump(dict(front), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{text}---\n\n{body.lstrip(chr(10))}"
