"""An artifact's own prose: summaries, passages and the words a query is matched on."""

from __future__ import annotations

import re
from functools import lru_cache

from revetly_core.store.stopwords import STOPWORDS

SUMMARY_CHARS = 280
PASSAGE_WORDS = 48
"""A passage is a window of this many words of the artifact's own prose."""

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")


@lru_cache(maxsize=65_536)
def light_stem(word: str) -> str:
    """The word lower-cased and Porter-stemmed, as the keyword index stems it."""
    from whoosh.lang.porter import stem

    return str(stem(word.lower().replace("’", "'").split("'")[0]))


def query_words(query: str) -> list[str]:
    """The distinct light stems of a query's words, stopwords and one-letter words left out."""
    seen: dict[str, None] = {}
    for m in _WORD.finditer(query):
        w = m.group(0).lower()
        if w in STOPWORDS or len(w) < 2:
            continue
        seen.setdefault(light_stem(w), None)
    return list(seen)


def prose(body: str) -> str:
    """The body's prose: heading lines dropped, whitespace folded to single spaces."""
    lines = [line for line in body.splitlines() if not _HEADING.match(line)]
    return " ".join(" ".join(lines).split())


def cut_on_word(text: str, limit: int) -> tuple[str, bool]:
    """The head of text no longer than limit, cut between words; True when something was cut."""
    if len(text) <= limit:
        return text, False
    head = text[:limit]
    if not text[limit].isspace() and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:."), True


_LEAD_FIELD = re.compile(r"^\s*(?:[-*]\s+)?\**(?:date|status|author|authors|deciders|consulted|"
                         r"informed|priority|parent|dependencies|related tasks|technical story|"
                         r"estimated effort)\**\s*:", re.I)
_LEAD_SECTION = re.compile(r"^#{2,6}\s+(?:status|date)\s*#*\s*$", re.I)


def without_lead_fields(body: str) -> str:
    """The body from its first prose: the record fields heading it dropped (``Date: ...``,
    ``**Status:** ...``, an adr-tools ``## Status`` section), so a summary starts with words."""
    lines = body.splitlines()
    i, in_section = 0, False
    while i < len(lines):
        line = lines[i]
        if not line.strip() or _LEAD_FIELD.match(line) or (line.startswith("# ") and i < 3):
            i += 1
        elif _LEAD_SECTION.match(line):
            in_section = True
            i += 1
        elif in_section and not line.startswith("#"):
            i += 1
        else:
            break
    return "\n".join(lines[i:]) if i < len(lines) else body


def summary(title: str, body: str) -> str:
    """The stated title, then the first 280 characters of the prose (record fields heading it
    left out), cut on a word and marked …."""
    head, cut = cut_on_word(prose(without_lead_fields(body)), SUMMARY_CHARS)
    text = f"{title} — {head}" if head else title
    return text + "…" if cut else text


def best_passage(
    body: str, words: list[str], window: int = PASSAGE_WORDS
) -> tuple[str, list[str]] | None:
    """The window of the prose holding the most distinct query words (earliest on a tie)."""
    text = prose(body)
    spans = [(m.start(), m.end(), light_stem(m.group(0))) for m in _WORD.finditer(text)]
    if not spans or not words:
        return None
    wanted = set(words)
    hits = [stem if stem in wanted else None for _, _, stem in spans]
    counts: dict[str, int] = {}
    for stem in hits[:window]:  # the first window, then slide it one word at a time
        if stem is not None:
            counts[stem] = counts.get(stem, 0) + 1
    best_start, best_hits, best_found = 0, len(counts), set(counts)
    for start in range(1, max(1, len(spans) - window + 1)):
        leaving, entering = hits[start - 1], hits[start + window - 1]
        if leaving is not None:
            counts[leaving] -= 1
            if counts[leaving] == 0:
                del counts[leaving]
        if entering is not None:
            counts[entering] = counts.get(entering, 0) + 1
        if len(counts) > best_hits:
            best_start, best_hits, best_found = start, len(counts), set(counts)
    if best_hits == 0:
        return None
    last = min(best_start + window, len(spans)) - 1
    start_char = spans[best_start][0]
    end_char = spans[last][1]
    passage = text[start_char:end_char]
    if best_start > 0:
        passage = "…" + passage
    if last < len(spans) - 1:
        passage += "…"
    return passage, sorted(best_found)
