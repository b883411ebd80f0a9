"""One body function for both gated writers, and the rule that keeps one list of criteria."""

from __future__ import annotations

import re

from revetly_core.markdown.criteria import criteria_sections, parse_criteria
from revetly_core.refusal import Refusal

CRITERIA_HEADING = "## Acceptance criteria"
_MARKER = re.compile(r"^\s{0,3}(?:[-*]|\d+[.)])\s+(.*)$")


def _normal(text: str) -> str:
    return " ".join(text.split())


def first_difference(section_lines: list[str], criteria: list[str]) -> tuple[int, str, str] | None:
    """(1-based line, section says, field says) of the first differing criterion line, or None."""
    said = [ln for ln in section_lines if ln.strip()]
    for i in range(max(len(said), len(criteria))):
        line = said[i] if i < len(said) else ""
        m = _MARKER.match(line)
        got = _normal(m.group(1)) if m else _normal(line)
        want = _normal(criteria[i]) if i < len(criteria) else ""
        if got != want or (line and not m):
            return i + 1, line.strip() or "(no line)", f"- {want}" if want else "(no line)"
    return None


def fold_criteria(description: str, criteria: list[str]) -> str:
    """A trailing criteria section identical to the field is folded; any other one is refused."""
    sections = criteria_sections(description)
    if not sections:
        return description
    lines = description.splitlines()
    last = sections[-1]
    if len(sections) > 1 or last.end != len(lines):
        first = sections[0]
        raise Refusal(
            "criteria-not-last",
            f"the description holds an acceptance-criteria section (line {first.heading_line + 1})"
            " that is not its last section",
            "remove the section from description and pass the criteria in acceptance_criteria",
            {"line": first.heading_line + 1},
        )
    diff = first_difference(lines[last.start:last.end], criteria)
    if diff is not None:
        n, said, want = diff
        raise Refusal(
            "criteria-differ",
            f"the description ends in its own acceptance-criteria section, and its line {n} "
            f"({said!r}) differs from acceptance_criteria ({want!r})",
            "drop the section from description (acceptance_criteria is the list the story "
            "carries), or make the two say the same",
            {"criteria_line": n, "section_says": said, "field_says": want},
        )
    return "\n".join(lines[:last.heading_line]).rstrip() + "\n"


def render_story_body(description: str, criteria: list[str]) -> str:
    """The story body both writers produce: the description, then one criteria list."""
    text = fold_criteria(description, criteria).rstrip()
    parts = [text] if text else []
    if criteria:
        parts.append(CRITERIA_HEADING + "\n\n" + "\n".join(f"- {c}" for c in criteria))
    return "\n\n".join(parts) + "\n"


def repair_doubled(body: str) -> str:
    """Drop every criteria section but the last; move no other line."""
    sections = criteria_sections(body)
    if len(sections) < 2:
        return body
    lines = body.splitlines(keepends=True)
    drop: set[int] = set()
    for s in sections[:-1]:
        drop.update(range(s.heading_line, s.end))
    kept = [ln for i, ln in enumerate(lines) if i not in drop]
    return "".join(kept)


def criteria_of(body: str) -> list[str]:
    """The criteria a stored body declares (the reading the engine uses everywhere)."""
    return list(parse_criteria(body).items)
