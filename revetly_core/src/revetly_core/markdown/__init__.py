"""Markdown sources: frontmatter, acceptance criteria and the prose around them."""

from revetly_core.markdown.criteria import criteria_fingerprint, parse_criteria
from revetly_core.markdown.frontmatter import FrontmatterError, split_frontmatter

__all__ = ["FrontmatterError", "criteria_fingerprint", "parse_criteria", "split_frontmatter"]
