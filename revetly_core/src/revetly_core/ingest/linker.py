"""The deterministic linker: declared links, ids named in prose, and titles named in prose."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from revetly_core.ids import IdFinder, IdKey, id_key, number_width, spell_key
from revetly_core.model import COMMIT_TYPE, RELATION_OF_FIELD, Artifact, Link

if TYPE_CHECKING:
    from ahocorasick_rs import AhoCorasick

    from revetly_core.store.db import Store

TOKEN_RUN = re.compile(r"[a-z0-9]+")
MIN_TITLE_TOKENS = 2
MIN_TITLE_CHARS = 8
"""A title shorter than this (or of one word) is too common a phrase to count as a mention."""
SEPARATORS_HELD = 4_096
"""Characters whose mapping `_Separators` remembers (every ASCII one among them)."""


class _Separators(dict[int, int]):
    """A str.translate table: a-z and 0-9 kept, every other character made a space."""

    def __missing__(self, char: int) -> int:
        kept = 48 <= char <= 57 or 97 <= char <= 122
        if len(self) < SEPARATORS_HELD:
            self[char] = char if kept else 32
        return char if kept else 32


TOKEN_TABLE = _Separators()


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (the runs of a-z and 0-9 of the lowercased text, as
    ``TOKEN_RUN.findall`` gives them): the unit a title mention is matched in."""
    return text.lower().translate(TOKEN_TABLE).split()


def key_text(key: IdKey) -> str:
    """The stable text form of an id key, kept on a link to re-resolve it later."""
    return key.text()


def mention_phrases(artifact: Artifact) -> list[tuple[str, ...]]:
    """The token sequences a body must contain whole to mention this artifact."""
    if artifact.type == COMMIT_TYPE:
        return []
    out: list[tuple[str, ...]] = []
    title = tuple(tokens(artifact.title))
    if len(title) >= MIN_TITLE_TOKENS and len(" ".join(title)) >= MIN_TITLE_CHARS:
        out.append(title)
    for alias in artifact.aliases:
        seq = tuple(tokens(alias))
        if seq and len(" ".join(seq)) >= 3:
            out.append(seq)
    return out


class TitleIndex:
    """Every mentionable phrase, found in a body by one Aho-Corasick automaton over the phrases'
    space-padded texts (``ahocorasick_rs``, built on the first scan after an addition): a body's
    tokens are scanned once, in native code, whatever the number of titles."""

    def __init__(self) -> None:
        self.by_phrase: dict[tuple[str, ...], set[str]] = {}
        self._scan: tuple[AhoCorasick, list[set[str]]] | None = None

    def add(self, artifact_id: str, phrases: Iterable[tuple[str, ...]]) -> None:
        for phrase in phrases:
            self.by_phrase.setdefault(phrase, set()).add(artifact_id)
        self._scan = None

    def found_in(self, body_tokens: list[str]) -> set[str]:
        """Ids of every artifact whose title or alias appears whole in the tokens (as `tokens`
        gives them: none holds a space)."""
        if not self.by_phrase:
            return set()
        automaton, owners = self._scan or self._build()
        found: set[str] = set()
        for i in {m[0] for m in automaton.find_matches_as_indexes(
                padded(body_tokens), overlapping=True)}:
            found.update(owners[i])
        return found

    def _build(self) -> tuple[AhoCorasick, list[set[str]]]:
        from ahocorasick_rs import AhoCorasick

        phrases = list(self.by_phrase)
        self._scan = (AhoCorasick([padded(p) for p in phrases]),
                      [self.by_phrase[p] for p in phrases])
        return self._scan


def padded(tokens: Iterable[str]) -> str:
    """Tokens joined by single spaces with a space either side: a phrase's padded text stands in
    a body's exactly where the phrase's tokens stand contiguously among the body's."""
    return " " + " ".join(tokens) + " "


def contains_phrase(body_tokens: list[str], phrase: tuple[str, ...]) -> bool:
    """True when the phrase's tokens stand contiguously in the body's tokens."""
    length = len(phrase)
    first = phrase[0]
    return any(
        tok == first and tuple(body_tokens[i : i + length]) == phrase
        for i, tok in enumerate(body_tokens)
    )


def phrase_text(phrase: tuple[str, ...]) -> str:
    """A phrase as the store keeps it: its tokens joined by single spaces."""
    return " ".join(phrase)


class Resolver(Protocol):
    def resolve(self, key: IdKey) -> str | None: ...

    def spell(self, key: IdKey, width: int = 0) -> str: ...


class Titles(Protocol):
    def found_in(self, body_tokens: list[str]) -> set[str]: ...


class StoreResolver:
    """Resolves id keys against the store on demand: an incremental pass never loads every id."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, str | None] = {}

    def resolve(self, key: IdKey) -> str | None:
        text = key_text(key)
        if text not in self._cache:
            self._cache[text] = self.store.ids_for_keys([text]).get(text)
        return self._cache[text]

    def spell(self, key: IdKey, width: int = 0) -> str:
        held = self.resolve(key)
        return held if held is not None else spell_key(key, width)


class StoreTitles:
    """Finds the titles a body names by looking its word runs up in the store's phrase table."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.lengths = store.phrase_lengths()

    def found_in(self, body_tokens: list[str]) -> set[str]:
        n = len(body_tokens)
        grams = {
            " ".join(body_tokens[i : i + length])
            for length in self.lengths for i in range(n - length + 1)
        }
        return self.store.artifacts_with_phrases(sorted(grams)) if grams else set()


class Linker:
    """States the links of one artifact from its own fields and prose, given what CONTEXT holds."""

    def __init__(
        self, families: Iterable[str], resolver: Resolver, titles: Titles, *,
        aliases: Mapping[str, str] | None = None, dotted: Iterable[str] = (),
    ) -> None:
        self.finder = IdFinder(families, aliases=aliases, dotted=dotted)
        self.resolver = resolver
        self.titles = titles

    def _target(self, written: str) -> str:
        key = id_key(written)
        if key is None:
            return written.strip()
        return self.resolver.spell(key, number_width(written) if "-" in written else 0)

    def declared_links(self, a: Artifact) -> list[Link]:
        """Links the artifact's frontmatter declares, each with method 'declared'."""
        declared: dict[str, Any] = a.metadata.get("declared", {})
        out: list[Link] = []
        for fld, value in declared.items():
            relation = RELATION_OF_FIELD[fld]
            if fld == "revises":
                for entry in value:
                    detail: list[tuple[str, Any]] = []
                    if entry.get("criteria"):
                        detail.append(("criteria", tuple(entry["criteria"])))
                    if entry.get("criteria_fp"):
                        detail.append(("criteria_fp", tuple(entry["criteria_fp"])))
                    out.append(Link(a.id, self._target(entry["id"]), relation, "declared",
                                    tuple(detail)))
            elif fld == "implemented_by":
                for sha in value:
                    out.append(Link(a.id, str(sha).strip().lower(), relation, "declared"))
            else:
                for target in value if isinstance(value, list) else [value]:
                    out.append(Link(a.id, self._target(str(target)), relation, "declared"))
        return out

    def id_refs(self, a: Artifact) -> list[tuple[IdKey, str, int]]:
        """(key, where, width) of every id the artifact's prose names: subject or body."""
        found: dict[IdKey, tuple[str, int]] = {}
        parts = [("subject", a.title), ("body", a.body)] if a.type == COMMIT_TYPE else [
            ("body", a.body)]
        for where, text in parts:
            for key, width in self.finder.found(text):
                found.setdefault(key, (where, width))
        return [(k, w, width) for k, (w, width) in found.items()]

    def links_of(self, a: Artifact) -> list[Link]:
        """Every link the artifact states: declared, then explicit-ref, then title-mention."""
        declared = self.declared_links(a)
        declared_dsts = {link.dst for link in declared}
        declared_keys = {k for k in (id_key(link.dst) for link in declared) if k is not None}
        own = id_key(a.id)
        out = list(declared)
        named_keys: set[IdKey] = set()
        for key, where, width in self.id_refs(a):
            named_keys.add(key)
            if key == own:
                continue
            dst = self.resolver.spell(key, width)
            if key in declared_keys:  # the declared link stands alone, however it is spelled
                continue
            detail = (("in", where),) if a.type == COMMIT_TYPE else ()
            out.append(Link(a.id, dst, "references", "explicit-ref", detail))
        if a.type != COMMIT_TYPE:
            for dst in sorted(self.titles.found_in(tokens(a.body))):
                dst_key = id_key(dst)
                named = dst_key is not None and (dst_key in named_keys or dst_key in declared_keys)
                if dst == a.id or named or dst in declared_dsts:
                    continue
                out.append(Link(a.id, dst, "mentions", "title-mention"))
        unique: dict[tuple[str, str, str, str], Link] = {}
        for link in out:
            unique.setdefault((link.src, link.dst, link.relation, link.method), link)
        return list(unique.values())
