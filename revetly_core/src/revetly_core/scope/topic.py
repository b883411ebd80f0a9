"""A topic scope: the keyword index over each artifact's own title and body, and the keep rule.

Hits are BM25 (English stemming, title weighted up) weighed by the share of the topic's words
the artifact carries. Kept: the artifacts carrying most of the words the best match carries and
scoring within reach of it; the rest are counted as weaker matches.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from revetly_core.config import Config
from revetly_core.reads.envelope import ProjectScope
from revetly_core.reads.search import alias_units
from revetly_core.reads.text import light_stem
from revetly_core.refusal import Refusal
from revetly_core.store.protocols import KeywordIndex, Store
from revetly_core.store.stopwords import STOPWORDS

MIN_TOPIC_WORD = 3
"""A topic word shorter than this names nothing."""
TOPIC_POOL = 60
"""How many keyword hits the keep rule reads."""
KEEP_WORD_SHARE = 0.6
"""Kept: an artifact carrying at least this share of the words the best match carries ..."""
KEEP_SCORE_REACH = 0.4
"""... and scoring at least this share of the best match's weighed score."""
MATCH_CAP = 12
"""At most this many artifacts match a topic; the rest are weaker matches."""
NOTHING_NAMED = ("every word of the topic is a stopword or shorter than three characters, so "
                 "nothing in it names an artifact")
_WORD = re.compile(r"[A-Za-z0-9]+")


def topic_words(topic: str) -> list[str]:
    """The distinct stems of the topic's words, stopwords and words under three letters left out."""
    seen: dict[str, None] = {}
    for m in _WORD.finditer(topic):
        w = m.group(0).lower()
        if w in STOPWORDS or len(w) < MIN_TOPIC_WORD:
            continue
        seen.setdefault(light_stem(w), None)
    return list(seen)


def word_share(text: str, words: list[str]) -> float:
    """The share of the topic's words that the text carries (stemmed)."""
    if not words:
        return 0.0
    own = {light_stem(m.group(0)) for m in _WORD.finditer(text)}
    return sum(1 for w in words if w in own) / len(words)


@dataclass(frozen=True)
class Match:
    artifact_id: str
    title: str
    artifact_type: str
    kind: str
    share: float
    score: float


@dataclass
class TopicMatch:
    """What a topic matched, how many weaker matches were left out, and why when nothing could."""

    words: list[str]
    matched: list[Match] = field(default_factory=list)
    weaker_matches: int = 0
    note: str | None = None

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "topic",
            "words": self.words,
            "matched": [{"artifact_id": m.artifact_id, "title": m.title,
                         "artifact_type": m.artifact_type, "word_share": round(m.share, 3)}
                        for m in self.matched],
            "weaker_matches": self.weaker_matches,
        }
        if self.note:
            out["note"] = self.note
        return out


def keeps(m: Match, best: Match) -> bool:
    """The keep rule: most of the best match's words, and a score within reach of it."""
    return (m.share + 1e-9 >= best.share * KEEP_WORD_SHARE
            and m.score + 1e-12 >= best.score * KEEP_SCORE_REACH)


def match_topic(
    config: Config, store: Store, index: KeywordIndex, topic: str, scope: ProjectScope
) -> TopicMatch:
    """The artifacts a topic names, by the keyword index and the keep rule."""
    words = topic_words(topic)
    result = TopicMatch(words)
    if not words:
        result.note = NOTHING_NAMED
        return result
    if index.revision() is None:
        raise Refusal("not-synced", "the keyword index is missing or torn",
                      "run `revetly sync` (it rebuilds the index)")
    searcher = index.shared_searcher()
    units = alias_units(topic, config.extraction.aliases, searcher)
    hits = searcher.search(units, TOPIC_POOL, any_unit=True)
    reach = set(scope.reach)
    candidates: list[Match] = []
    for artifact_id, score in hits:
        a = store.get(artifact_id)
        if a is None or a.deleted or a.project not in reach or a.kind == "commit":
            continue
        if a.metadata.get("withheld"):
            continue
        share = word_share(a.title + "\n" + a.body, words)
        weighed = score * share
        if weighed <= 0:
            continue
        candidates.append(Match(a.id, a.title, a.type, a.kind, share, weighed))
    candidates.sort(key=lambda m: (-m.score, m.artifact_id))
    if not candidates:
        return result
    best = candidates[0]
    kept = [m for m in candidates if keeps(m, best)]
    result.matched = kept[:MATCH_CAP]
    result.weaker_matches = len(candidates) - len(result.matched)
    return result


def topic_share_of(text: str, words: list[str]) -> float:
    """A statement's own words' share of the topic, rounded so orders stay stable."""
    return math.floor(word_share(text, words) * 1000) / 1000
