"""Artifact ids: declared families, parsing, normalising and finding ids in prose."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

DEFAULT_FAMILIES: dict[str, str] = {
    "EPIC": "epic",
    "FEAT": "feature",
    "STORY": "story",
    "TASK": "task",
    "BUG": "bug",
    "DEC": "decision",
    "CONV": "conversation",
    "REF": "reference",
    "DEL": "delivery",
}
"""Default id family prefix -> the artifact type it usually numbers."""

MAX_RANGE = 50
"""A range in prose (``STORY-12..14``) longer than this is read as its two ends only."""

_ID_SHAPE = re.compile(r"^[A-Z][A-Z0-9]*-\d+$")


@dataclass(frozen=True, order=True)
class IdKey:
    """An id reduced to what identifies it: family and number (padding ignored)."""

    family: str
    number: int


def id_key(artifact_id: str) -> IdKey | None:
    """The (family, number) key of an id, ignoring case and zero padding; None if not an id."""
    m = re.fullmatch(r"([A-Za-z][A-Za-z0-9]*)[-_ ](\d+)", artifact_id.strip())
    if not m:
        return None
    return IdKey(m.group(1).upper(), int(m.group(2)))


def is_id_shaped(value: str) -> bool:
    """True when a value is written FAMILY-NUMBER in canonical upper case."""
    return bool(_ID_SHAPE.match(value))


class IdFinder:
    """Finds the ids of declared families named in prose, ranges and case variants included."""

    def __init__(self, families: Iterable[str]) -> None:
        fams = sorted({f.upper() for f in families}, key=lambda f: (-len(f), f))
        self.families = frozenset(fams)
        if not fams:
            self._pattern: re.Pattern[str] | None = None
            return
        alt = "|".join(re.escape(f) for f in fams)
        # FAMILY-12 in any case; FAMILY 12 or FAMILY_12 only in capitals (so "Dec 12" is a date);
        # a range runs to ..14 or ..FAMILY-14 of the same family.
        self._pattern = re.compile(
            rf"(?<![A-Za-z0-9])(?:(?i:({alt}))-|({alt})[ _])(\d+)"
            rf"(?:\s*\.\.\s*(?:(?i:({alt}))[-_ ]?)?(\d+))?(?![A-Za-z0-9])"
        )

    def spans(self, text: str) -> Iterator[tuple[str, int, int, int]]:
        """Yield (family, first, last, width) for each id or range named in text."""
        if self._pattern is None:
            return
        for m in self._pattern.finditer(text):
            fam = (m.group(1) or m.group(2)).upper()
            first = int(m.group(3))
            width = len(m.group(3))
            if m.group(5) is None:
                yield fam, first, first, width
                continue
            end_fam = (m.group(4) or fam).upper()
            last = int(m.group(5))
            if end_fam != fam or last < first or last - first > MAX_RANGE:
                yield fam, first, first, width  # not a range to expand: its two ends
                yield end_fam, last, last, len(m.group(5))
                continue
            yield fam, first, last, width

    def keys(self, text: str) -> list[IdKey]:
        """Every id key named in text, in order of first appearance, each once."""
        seen: dict[IdKey, None] = {}
        for fam, first, last, _w in self.spans(text):
            for n in range(first, last + 1):
                seen.setdefault(IdKey(fam, n), None)
        return list(seen)


class IdResolver:
    """Resolves id keys to the spelling the store holds; unknown ids keep a canonical spelling."""

    def __init__(self, held: Iterable[str]) -> None:
        self._by_key: dict[IdKey, str] = {}
        for artifact_id in held:
            k = id_key(artifact_id)
            if k is not None:
                prior = self._by_key.get(k)
                if prior is None or artifact_id < prior:
                    self._by_key[k] = artifact_id

    def resolve(self, key: IdKey) -> str | None:
        """The held id for a key, or None when CONTEXT holds no such artifact."""
        return self._by_key.get(key)

    def spell(self, key: IdKey, width: int = 0) -> str:
        """The held spelling of a key, else FAMILY-number padded to width."""
        held = self._by_key.get(key)
        return held if held is not None else f"{key.family}-{key.number:0{width}d}"

    def add(self, artifact_id: str) -> None:
        """Register one more held id."""
        k = id_key(artifact_id)
        if k is not None and k not in self._by_key:
            self._by_key[k] = artifact_id

    @classmethod
    def from_mapping(cls, mapping: Mapping[IdKey, str]) -> IdResolver:
        r = cls(())
        r._by_key = dict(mapping)
        return r
