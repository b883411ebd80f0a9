"""An artifact's own prose: summaries, passages and the words a query is matched on."""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from itertools import compress, islice, repeat
from operator import is_not

from revetly_core.store.stopwords import STOPWORDS

SUMMARY_CHARS = 280
PASSAGE_WORDS = 48
"""A passage is a window of this many words of the artifact's own prose."""

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9]+")
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


def prose_head(body: str, chars: int) -> str:
    """The start of `prose(body)`, longer than `chars` when the prose is: lines are folded only
    until then (a summary reads no further)."""
    words: list[str] = []
    length = -1
    for line in body.splitlines():
        if _HEADING.match(line):
            continue
        parts = line.split()
        words.extend(parts)
        length += sum(map(len, parts)) + len(parts)
        if length > chars:
            break
    return " ".join(words)


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
    head, cut = cut_on_word(prose_head(without_lead_fields(body), SUMMARY_CHARS), SUMMARY_CHARS)
    text = f"{title} — {head}" if head else title
    return text + "…" if cut else text


def best_passage(
    body: str, words: list[str], window: int = PASSAGE_WORDS
) -> tuple[str, list[str]] | None:
    """The window of the prose holding the most distinct query words (earliest on a tie)."""
    if not words:
        return None
    text = prose(body)
    hits = query_hits(_WORD.findall(text), set(words))
    if not hits:
        return None
    best_start, best_found = best_window(hits, window)
    if not best_found:
        return None
    last = min(best_start + window, len(hits)) - 1
    tokens = _WORD.finditer(text)
    first_token = next(islice(tokens, best_start, None))
    last_token = first_token if last == best_start else next(islice(tokens, last - best_start - 1, None))
    passage = text[first_token.start():last_token.end()]
    if best_start > 0:
        passage = "…" + passage
    if last < len(hits) - 1:
        passage += "…"
    return passage, sorted(best_found)


def query_hits(tokens: list[str], wanted: set[str]) -> list[str | None]:
    """Per token, its light stem when that is a query word, else None.

    Each distinct token is stemmed once, and only when it begins as a query word does: a stem
    keeps its word's first two letters (`stem_keeps_head`), so no other token can hit."""
    two, one = stem_heads(frozenset(wanted))
    held = {token: stem for token in set(tokens)
            if (token[:2] in two or token[:1] in one) and (stem := light_stem(token)) in wanted}
    return list(map(held.get, tokens))


def query_words_in(text: str, wanted: set[str]) -> int:
    """How many distinct query words a text holds, its words light-stemmed (only the words that
    begin as a query word does can be one, as in `query_hits`)."""
    two, one = stem_heads(frozenset(wanted))
    return len({light_stem(w) for w in set(_PLAIN_WORD.findall(text))
                if w[:2] in two or w[:1] in one} & wanted)


@lru_cache(maxsize=256)
def stem_heads(wanted: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """How a word begins when its light stem can be one of these (`stem_keeps_head`): its first
    two letters, in any case, are a stem's; or its first, for a one-letter stem. Two sets, so
    each word is tested by two lookups."""
    two = frozenset(a + b for stem in wanted if len(stem) >= 2
                    for a in (stem[0], stem[0].upper()) for b in (stem[1], stem[1].upper()))
    one = frozenset(a for stem in wanted if len(stem) == 1 for a in (stem, stem.upper()))
    return two, one


def stem_keeps_head(word: str) -> bool:
    """True when the light stem of a word keeps the word's first two letters, lower-cased (its
    first, when the stem is one letter): Porter rewrites only endings past them."""
    stem, head = light_stem(word), word.lower()
    return stem[:2] == head[:2] if len(stem) >= 2 else stem == head[:1]


def best_window(hits: list[str | None], window: int) -> tuple[int, set[str]]:
    """The earliest start of the window of `window` tokens holding the most distinct hits, and them.

    Only the first window and those a hit enters at their last token can be the earliest best
    (any other window holds no more than the one a token before it), so only those are counted."""
    positions = list(compress(range(len(hits)), map(is_not, hits, repeat(None))))
    best_start = 0
    best_found = {hits[i] for i in positions[: bisect_left(positions, window)]}
    last_start = max(0, len(hits) - window)
    for entering in positions:
        start = entering - window + 1
        if start < 1 or start > last_start:
            continue
        inside = positions[bisect_left(positions, start): bisect_left(positions, entering + 1)]
        found = {hits[i] for i in inside}
        if len(found) > len(best_found):
            best_start, best_found = start, found
    return best_start, {stem for stem in best_found if stem is not None}
