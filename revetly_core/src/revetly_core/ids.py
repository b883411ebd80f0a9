"""Artifact ids: declared families, parsing, normalising and finding ids in prose."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

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

_ID_SHAPE = re.compile(r"^[A-Z][A-Z0-9]*-[0-9]+$")
_ID_KEY = re.compile(r"([A-Za-z][A-Za-z0-9]*)[-_ ]([0-9]+)((?:\.[0-9]+)*)")
_NUMBER_TAIL = re.compile(r"[-_ ]([0-9]+)(?:\.[0-9]+)*\s*$")
ID_KEY_CACHE = 1 << 14
"""Ids whose keys are remembered (about 4 MiB at most): a pass asks the key of one id several
times in a row, and a served process must not grow by more than that."""


_DIGITS = re.compile(r"[0-9]+")
_ALNUM = re.compile(r"[A-Za-z0-9]+")


def has_ascii_digit(text: str) -> bool:
    """True when text holds a digit 0-9 (an id needs one): ten substring tests, no scan in Python."""
    return any(d in text for d in "0123456789")


def is_ascii_id(written: str) -> bool:
    """Ids are ASCII by rule: a full-width digit or a look-alike letter never spells an id."""
    return written.isascii()


@dataclass(frozen=True, order=True)
class IdKey:
    """An id reduced to what identifies it: family and number (padding ignored).

    ``sub`` holds the numbers of a dotted sub-task id (``BACK-24.02`` has sub ``(2,)``).
    """

    family: str
    number: int
    sub: tuple[int, ...] = ()

    def text(self) -> str:
        """The stable text form of the key, as the store keeps it: ``BACK:24`` or ``BACK:24.2``."""
        tail = "".join(f".{n}" for n in self.sub)
        return f"{self.family}:{self.number}{tail}"


@lru_cache(maxsize=ID_KEY_CACHE)
def id_key(artifact_id: str) -> IdKey | None:
    """The key of an id, ignoring case and zero padding (dotted sub-task parts included).
    Cached: a key is immutable, and one pass asks it of the same id at every step."""
    m = _ID_KEY.fullmatch(artifact_id.strip())
    if not m:
        return None
    sub = tuple(int(part) for part in m.group(3).split(".")[1:])
    return IdKey(m.group(1).upper(), int(m.group(2)), sub)


def spell_key(key: IdKey, width: int = 0) -> str:
    """A canonical spelling of a key: FAMILY-number padded to width, dotted parts unpadded."""
    tail = "".join(f".{n}" for n in key.sub)
    return f"{key.family}-{key.number:0{width}d}{tail}"


def number_width(written: str) -> int:
    """How many digits the main number of a written id has (its padding), 0 if none."""
    m = _NUMBER_TAIL.search(written)
    return len(m.group(1)) if m else 0


def is_id_shaped(value: str) -> bool:
    """True when a value is written FAMILY-NUMBER in canonical upper case."""
    return bool(_ID_SHAPE.match(value))


class IdFinder:
    """Finds the ids of declared families named in prose, ranges and case variants included.

    ``aliases`` maps another word to a declared family (``TASK`` -> ``BACK``: "task-12" names
    BACK-12); ``dotted`` lists the families whose ids take dotted sub-task parts (``BACK-24.1``).
    """

    def __init__(
        self, families: Iterable[str], *, aliases: Mapping[str, str] | None = None,
        dotted: Iterable[str] = (),
    ) -> None:
        self.aliases = {a.upper(): f.upper() for a, f in (aliases or {}).items()}
        self.dotted = frozenset(f.upper() for f in dotted)
        real = {f.upper() for f in families}
        fams = sorted(real | set(self.aliases), key=lambda f: (-len(f), f))
        self.families = frozenset(real)
        if not fams:
            self._pattern: re.Pattern[str] | None = None
            return
        alt = "|".join(re.escape(f) for f in fams)
        # FAMILY-12 in any case; FAMILY 12 or FAMILY_12 only in capitals (so "Dec 12" is a date);
        # a range runs to ..14 or ..FAMILY-14 of the same family.
        self._pattern = re.compile(
            rf"(?<![A-Za-z0-9])(?:(?i:({alt}))-|({alt})[ _])(\d+)((?:\.\d+)+)?"
            rf"(?:\s*\.\.\s*(?:(?i:({alt}))[-_ ]?)?(\d+))?(?![A-Za-z0-9])",
            re.ASCII,  # ids are ASCII by rule: "STORY-０００５" in prose names nothing
        )
        # what opens an id, up to its first digit: looked for only just before a digit
        self._opening = re.compile(
            rf"(?<![A-Za-z0-9])(?:(?i:{alt})-|(?:{alt})[ _])[0-9]", re.ASCII)
        self._reach = max(len(f) for f in fams) + 1
        self._near_digits = all(_ALNUM.fullmatch(f) for f in fams)

    def _family(self, written: str) -> str:
        upper = written.upper()
        return self.aliases.get(upper, upper)

    def _matches(self, text: str) -> Iterator[re.Match[str]]:
        """The id pattern's matches in text, exactly as finditer gives them, found faster: an id
        opens at most `_reach` characters before the first digit of a run of digits, so the
        pattern is tried only where `_opening` matches just before one (families and aliases of
        letters and digits only; else, and for text without digits, the plain scan)."""
        pattern = self._pattern
        if pattern is None or not has_ascii_digit(text):
            return
        if not self._near_digits:
            yield from pattern.finditer(text)
            return
        opening, reach = self._opening, self._reach
        pos = 0  # where the last id ended: the next one starts at or after it
        for run in _DIGITS.finditer(text):
            at = run.start()
            if at < pos:
                continue
            lo = max(pos, at - reach)
            while (head := opening.search(text, lo, at + 1)) is not None:
                m = pattern.match(text, head.start())
                if m is not None:
                    yield m
                    pos = m.end()
                    break
                lo = head.start() + 1

    def found(self, text: str) -> Iterator[tuple[IdKey, int]]:
        """Yield (key, width) of every id named in text, ranges expanded, sub-task ids kept."""
        for m in self._matches(text):
            fam = self._family(m.group(1) or m.group(2))
            if m.group(4) and fam in self.dotted and m.group(6) is None:
                sub = tuple(int(p) for p in m.group(4).split(".")[1:])
                yield IdKey(fam, int(m.group(3)), sub), len(m.group(3))
                continue
            for fam_, first, last, width in self._span(m):
                for n in range(first, last + 1):
                    yield IdKey(fam_, n), width

    def spans(self, text: str) -> Iterator[tuple[str, int, int, int]]:
        """Yield (family, first, last, width) for each id or range named in text."""
        for m in self._matches(text):
            yield from self._span(m)

    def _span(self, m: re.Match[str]) -> Iterator[tuple[str, int, int, int]]:
        """The (family, first, last, width) spans of one match (sub-task parts ignored)."""
        fam = self._family(m.group(1) or m.group(2))
        first = int(m.group(3))
        width = len(m.group(3))
        if m.group(6) is None:
            yield fam, first, first, width
            return
        end_fam = self._family(m.group(5) or fam)
        last = int(m.group(6))
        if end_fam != fam or last < first or last - first > MAX_RANGE:
            yield fam, first, first, width  # not a range to expand: its two ends
            yield end_fam, last, last, len(m.group(6))
            return
        yield fam, first, last, width

    def keys(self, text: str) -> list[IdKey]:
        """Every id key named in text, in order of first appearance, each once."""
        seen: dict[IdKey, None] = {}
        for key, _w in self.found(text):
            seen.setdefault(key, None)
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
        return held if held is not None else spell_key(key, width)

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
