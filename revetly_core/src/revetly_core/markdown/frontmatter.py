"""Splitting a markdown file into its YAML frontmatter and its body."""

from __future__ import annotations

from typing import Any

from revetly_core.markdown.safe_yaml import YamlRefused, load_yaml


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
    """A frontmatter block loaded by the one safe loader; it must be a mapping (or empty)."""
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
