"""Statements: what a decision, constraint or assumption note states, read deterministically."""

from __future__ import annotations

import re

from revetly_core.model import STATEMENT_NOTE_TYPES, Artifact

MAX_STATEMENT_CHARS = 600
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")


def statement_text(a: Artifact) -> str | None:
    """The note's statement: the first paragraph under a 'Decision' heading, else its first."""
    if a.type not in STATEMENT_NOTE_TYPES:
        return None
    paragraphs: list[tuple[str | None, str]] = []
    heading: str | None = None
    buf: list[str] = []

    def flush() -> None:
        if buf:
            paragraphs.append((heading, " ".join(buf)))
            buf.clear()

    for line in a.body.splitlines():
        m = _HEADING.match(line)
        if m:
            flush()
            heading = m.group(1).strip().lower()
        elif not line.strip():
            flush()
        else:
            buf.append(line.strip())
    flush()
    if not paragraphs:
        return a.title
    chosen = next((p for h, p in paragraphs if h and h.startswith("decision")), paragraphs[0][1])
    if len(chosen) > MAX_STATEMENT_CHARS:
        cut = chosen[:MAX_STATEMENT_CHARS].rsplit(" ", 1)[0]
        chosen = cut + "…"
    return f"{a.title}: {chosen}"


def statement_rows(a: Artifact) -> list[tuple[str, str, str, str | None]]:
    """(statement id, artifact id, text, stated_at) rows for one artifact."""
    text = statement_text(a)
    if text is None:
        return []
    return [(f"{a.id}#statement", a.id, text, a.created_at)]
