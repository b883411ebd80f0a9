"""Backlog.md's body markers: acceptance criteria and Definition of Done checklists.

Backlog.md writes a checklist between two HTML comments that stand alone on their lines::

    <!-- AC:BEGIN -->
    - [ ] #1 Export keeps the filter
    - [x] #2 The file name carries the date
    <!-- AC:END -->

and the Definition of Done the same way between ``DOD:BEGIN`` and ``DOD:END``. A marker
quoted inside a sentence is prose, not a marker. Files written before the markers existed
keep a plain checklist under an "Acceptance Criteria" heading; that is read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MARKER_LINE = re.compile(r"^\s*<!--\s*([A-Z_]+(?::[A-Z_]+)*)\s*-->\s*$")
_CHECK_ITEM = re.compile(r"^\s{0,3}[-*]\s+\[([ xX])\]\s+(?:#(\d+)\s+)?(.*\S)\s*$")
_PLAIN_ITEM = re.compile(r"^\s{0,3}(?:[-*]|\d+[.)])\s+(.*\S)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_AC_TITLE = re.compile(r"^acceptance[\s-]+criteria\b", re.IGNORECASE)
_SUMMARY_TITLE = re.compile(r"^final\s+summary\b", re.IGNORECASE)
SUMMARY_HEAD_CHARS = 500


@dataclass(frozen=True)
class CheckItem:
    """One checklist item: its number as written (if any), text and checked state."""

    number: int | None
    text: str
    checked: bool

    def payload(self) -> dict[str, object]:
        return {"number": self.number, "text": self.text, "checked": self.checked}


def marker_name(line: str) -> str | None:
    """The name of a marker comment standing alone on its line (``AC:BEGIN``), else None."""
    m = _MARKER_LINE.match(line)
    return m.group(1) if m else None


def check_item(line: str) -> CheckItem | None:
    """A ``- [ ] #1 text`` / ``- [x] text`` line as an item, else None."""
    m = _CHECK_ITEM.match(line)
    if not m:
        return None
    return CheckItem(int(m.group(2)) if m.group(2) else None, m.group(3).strip(),
                     m.group(1) != " ")


def between_markers(body: str, name: str) -> list[str] | None:
    """The lines between ``<name>:BEGIN`` and ``<name>:END`` markers, None when absent."""
    lines = body.splitlines()
    start = None
    for i, line in enumerate(lines):
        marker = marker_name(line)
        if marker == f"{name}:BEGIN" and start is None:
            start = i + 1
        elif marker == f"{name}:END" and start is not None:
            return lines[start:i]
    return None if start is None else lines[start:]


def checklist(lines: list[str]) -> list[CheckItem]:
    """Checklist items of a block; a wrapped line continues the item above it."""
    items: list[CheckItem] = []
    for line in lines:
        item = check_item(line)
        if item is not None:
            items.append(item)
            continue
        plain = _PLAIN_ITEM.match(line)
        if plain:
            items.append(CheckItem(None, plain.group(1).strip(), False))
        elif line.strip() and items and line.startswith((" ", "\t")):
            last = items[-1]
            items[-1] = CheckItem(last.number, f"{last.text} {line.strip()}", last.checked)
    return items


def heading_section(body: str, title: re.Pattern[str]) -> list[str] | None:
    """The lines under the first heading whose text matches ``title``, to the next heading."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m and title.match(m.group(2)):
            level = len(m.group(1))
            j = i + 1
            while j < len(lines):
                h = _HEADING.match(lines[j])
                if h and len(h.group(1)) <= level:
                    break
                j += 1
            return lines[i + 1 : j]
    return None


def acceptance_criteria(body: str) -> tuple[list[CheckItem], bool]:
    """(items, from_markers): the AC markers' checklist, else the heading's checklist."""
    block = between_markers(body, "AC")
    if block is not None:
        return checklist(block), True
    section = heading_section(body, _AC_TITLE)
    return (checklist(section), False) if section is not None else ([], False)


def definition_of_done(body: str) -> list[CheckItem]:
    """The Definition of Done checklist between its markers (empty when there is none)."""
    block = between_markers(body, "DOD")
    return checklist(block) if block is not None else []


def final_summary(body: str) -> str | None:
    """The Final Summary a task states of what shipped (between its section markers, else
    under a "Final Summary" heading), its head kept; None when there is none or it is empty."""
    block = between_markers(body, "SECTION:FINAL_SUMMARY")
    if block is None:
        block = heading_section(body, _SUMMARY_TITLE)
    text = "\n".join(line for line in block or [] if marker_name(line) is None).strip()
    return text[:SUMMARY_HEAD_CHARS] or None


def without_markers(body: str) -> str:
    """The body with every marker line removed: what search and passages read."""
    kept = [line for line in body.splitlines() if marker_name(line) is None]
    return "\n".join(kept).strip("\n") + ("\n" if kept else "")
