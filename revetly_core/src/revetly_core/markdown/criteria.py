"""Acceptance criteria: the list under a body's '## Acceptance criteria' heading."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from revetly_core.answers.maintenance import CheckProblem

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MARKER = re.compile(r"^\s{0,3}(?:[-*]|\d+[.)])\s+(.*)$")
_CRITERIA_TITLE = re.compile(r"^acceptance[\s-]+criteria\s*:?$", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedCriteria:
    """The criteria a body states; ``heading`` says whether the section exists at all."""

    items: tuple[str, ...]
    heading: bool

    @property
    def unparsed(self) -> bool:
        """A criteria heading with no criterion under it: not the same as 'none declared'."""
        return self.heading and not self.items


def criteria_fingerprint(text: str) -> str:
    """First eight hex digits of sha1 over the criterion, whitespace collapsed, case folded."""
    norm = " ".join(text.split()).casefold()
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:8]


def criteria_section(body: str) -> tuple[int, int] | None:
    """Line span [start, end) of the last acceptance-criteria section's content, if any."""
    lines = body.splitlines()
    span: tuple[int, int] | None = None
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        m = None if in_fence or not line.startswith("#") else _HEADING.match(line)
        if m and _CRITERIA_TITLE.match(m.group(2)):
            level = len(m.group(1))
            j = i + 1
            fence = False
            while j < len(lines):
                if lines[j].lstrip().startswith("```"):
                    fence = not fence
                h = None if fence or not lines[j].startswith("#") else _HEADING.match(lines[j])
                if h and len(h.group(1)) <= level:
                    break
                j += 1
            span = (i + 1, j)
            i = j
            continue
        i += 1
    return span


def parse_criteria(body: str) -> ParsedCriteria:
    """Criteria are marker lines (- , * , 1. , 1) ) under the heading; wrapped lines rejoin."""
    span = criteria_section(body)
    if span is None:
        return ParsedCriteria((), False)
    lines = body.splitlines()[span[0] : span[1]]
    items: list[str] = []
    current: list[str] | None = None
    in_fence = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            if current is not None:
                items.append(" ".join(current))
                current = None
            continue
        if in_fence:  # a list inside a code block is an example, not a criterion
            continue
        m = _MARKER.match(line)
        if m:
            if current is not None:
                items.append(" ".join(current))
            current = [m.group(1).strip()]
        elif not line.strip():
            if current is not None:
                items.append(" ".join(current))
                current = None
        elif current is not None:  # a wrapped line continues the criterion above it
            current.append(line.strip())
    if current is not None:
        items.append(" ".join(current))
    return ParsedCriteria(tuple(i for i in items if i), True)


@dataclass(frozen=True)
class CriteriaSection:
    """A criteria section found in a text: its heading line, content span and heading level."""

    heading_line: int
    start: int
    end: int
    level: int


def criteria_sections(text: str) -> list[CriteriaSection]:
    """Every '## Acceptance criteria' section outside code fences, in order."""
    lines = text.splitlines()
    found: list[CriteriaSection] = []
    fence = False
    heads: list[tuple[int, int, bool]] = []  # (line, level, is_criteria)
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        m = None if fence else _HEADING.match(line)
        if m:
            heads.append((i, len(m.group(1)), bool(_CRITERIA_TITLE.match(m.group(2)))))
    for n, (i, level, is_criteria) in enumerate(heads):
        if not is_criteria:
            continue
        end = len(lines)
        for j, lvl, _c in heads[n + 1:]:
            if lvl <= level:
                end = j
                break
        found.append(CriteriaSection(i, i + 1, end, level))
    return found


def doubled_criteria(body: str) -> bool:
    """A body carrying more than one acceptance-criteria section (what `check` names)."""
    return len(criteria_sections(body)) > 1


def doubled_criteria_problem(artifact_id: str, path: str | None, body: str) -> CheckProblem | None:
    """The `check` problem of a work item whose body carries its criteria twice (else None)."""
    sections = len(criteria_sections(body))
    if sections <= 1:
        return None
    return {
        "path": path, "id": artifact_id, "code": "doubled-criteria",
        "detail": f"{artifact_id} carries {sections} acceptance-criteria sections; it reads "
                  "back with every list",
        "fix": "run `revetly check --repair` (keeps the last list)",
    }
