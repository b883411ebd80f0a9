"""Markdown sources: frontmatter, acceptance criteria and the prose around them.

The names below load their module on first use, so a read that only fingerprints criteria
(revetly_core.markdown.criteria) does not import the frontmatter parser (yaml, pydantic)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from revetly_core.markdown.criteria import criteria_fingerprint, parse_criteria
    from revetly_core.markdown.frontmatter import FrontmatterError, split_frontmatter

__all__ = ["FrontmatterError", "criteria_fingerprint", "parse_criteria", "split_frontmatter"]

_HOME = {"criteria_fingerprint": "criteria", "parse_criteria": "criteria",
         "FrontmatterError": "frontmatter", "split_frontmatter": "frontmatter"}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
