"""Looking up what the store holds of a source one artifact at a time, and seeing it through a
read's listing (the whole one, or only the files that can have changed; decision 0033).

A pass that changed little should not read every row the store holds of a source. A source
that asks for it (``looks_up_known``) is handed a ``known`` that also answers these lookups;
a plain ``dict`` of known artifacts (a test, a caller without a store) answers them from
memory through :class:`DictHeld`, with the same results.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from revetly_core.connectors.base import KnownArtifact
from revetly_core.fsread import Listing
from revetly_core.ids import id_key


def key_of(artifact_id: str) -> str:
    """Two ids are one id when family and number agree, whatever the padding or case."""
    key = id_key(artifact_id)
    return artifact_id if key is None else key.text()


@runtime_checkable
class HeldLookup(Protocol):
    """Point lookups into what the store holds of one source."""

    def by_id(self, artifact_id: str) -> KnownArtifact | None:
        """The held artifact with this id, or None."""
        ...

    def at_path(self, path: str) -> list[KnownArtifact]:
        """Every held artifact read from this path (deleted ones too), in the order ``known``
        iterates them (the store's: by id)."""
        ...

    def with_key(self, key_text: str) -> list[KnownArtifact]:
        """Every held artifact whose id has this key (:func:`key_of`), in id order."""
        ...


class DictHeld:
    """The lookups over a plain mapping of known artifacts (each map built on first use)."""

    def __init__(self, known: Mapping[str, KnownArtifact]) -> None:
        self.known = known
        self._paths: dict[str, list[KnownArtifact]] | None = None
        self._keys: dict[str, list[KnownArtifact]] | None = None

    def by_id(self, artifact_id: str) -> KnownArtifact | None:
        return self.known.get(artifact_id)

    def at_path(self, path: str) -> list[KnownArtifact]:
        if self._paths is None:
            self._paths = {}
            for k in self.known.values():
                if k.path:
                    self._paths.setdefault(k.path, []).append(k)
        return list(self._paths.get(path, []))

    def with_key(self, key_text: str) -> list[KnownArtifact]:
        if self._keys is None:
            self._keys = {}
            for k in sorted(self.known.values(), key=lambda k: k.id):
                self._keys.setdefault(key_of(k.id), []).append(k)
        return list(self._keys.get(key_text, []))


def held_lookup(known: Mapping[str, KnownArtifact]) -> HeldLookup:
    """``known`` itself when it answers lookups (the store's), else lookups over it in memory."""
    return known if isinstance(known, HeldLookup) else DictHeld(known)


def last_live(held: list[KnownArtifact]) -> KnownArtifact | None:
    """The artifact a ``{k.path: k}`` map over live ones keeps for a path: the last live one."""
    live = [k for k in held if not k.deleted]
    return live[-1] if live else None


@dataclass
class ListingView:
    """The listing a read judges: every wanted file (``scope`` None), or only the files in
    ``scope``, every other file being listed as the last read listed it."""

    listing: Listing
    worktree: list[str]
    """The wanted files git status reported (the next read looks at them again)."""
    scope: set[str] | None = None

    def covers(self, path: str) -> bool:
        """Whether this listing says what the file at ``path`` is now."""
        return self.scope is None or path in self.scope


class HeldView:
    """What the store held of the source when the read began, seen through the read's listing,
    and which listed file holds each id key (a file read this pass takes its key over).

    With the whole listing every known artifact is mapped once. With a partial one each file
    in scope is looked up before anything is written, and an id key only when a read file
    declares it; a file outside the scope is listed as before, holding what the store holds."""

    def __init__(self, lookup: HeldLookup, known: dict[str, KnownArtifact], view: ListingView,
                 prior_problems: dict[str, str | None]) -> None:
        self.lookup, self.known, self.view = lookup, known, view
        self.prior_problems = prior_problems
        self.changed: set[str] = set()
        self.demoted: set[str] = set()
        self._owner: dict[str, str | None] = {}
        self._ids: dict[str, str] = {}
        self._paths: dict[str, list[KnownArtifact]] = {}
        self._whole: dict[str, KnownArtifact] | None = None
        self._whole_any: dict[str, KnownArtifact] | None = None
        if view.scope is None:
            self._whole = {k.path: k for k in known.values() if k.path and not k.deleted}
        else:
            self._paths = {p: lookup.at_path(p) for p in sorted(view.scope)}

    def live_at(self, path: str) -> KnownArtifact | None:
        """The live artifact the store held at this path."""
        if self._whole is not None:
            return self._whole.get(path)
        return last_live(self._rows_at(path))

    def any_at(self, path: str) -> KnownArtifact | None:
        """The artifact the store held at this path, deleted ones included."""
        if self._whole is not None:
            if self._whole_any is None:
                self._whole_any = {k.path: k for k in self.known.values() if k.path}
            return self._whole_any.get(path)
        held = self._rows_at(path)
        return held[-1] if held else None

    def _rows_at(self, path: str) -> list[KnownArtifact]:
        """The rows read from a path, as they were when first looked up: a file in scope is
        looked up before anything is written, one outside it before a file takes its id."""
        if path not in self._paths:
            self._paths[path] = self.lookup.at_path(path)
        return self._paths[path]

    def listed(self, path: str) -> bool:
        """Whether the read lists a file at this path."""
        return path in self.view.listing.blobs if self.view.covers(path) else True

    def listed_blob(self, path: str) -> str | None:
        """The blob id the read lists for this path."""
        if self.view.covers(path):
            return self.view.listing.blobs.get(path)
        if path in self.prior_problems:
            return self.prior_problems[path]
        k = self.live_at(path)
        return None if k is None else k.blob

    def begin(self, changed: list[str]) -> None:
        """The files this read re-reads; with the whole listing, every other listed file's id
        key is mapped to the first path (by name) holding it."""
        self.changed.update(changed)
        if self._whole is None:
            return
        listing = self.view.listing.blobs
        self._ids = {p: k.id for p, k in self._whole.items()
                     if p in listing and p not in self.changed}
        for p in sorted(self._ids):
            self._owner.setdefault(key_of(self._ids[p]), p)

    def owner(self, key: str) -> str | None:
        """The listed file holding this id key (the first by name of those not re-read)."""
        if key in self._owner or self._whole is not None:
            return self._owner.get(key)
        best: str | None = None
        for k in self.lookup.with_key(key):
            p = k.path
            if k.deleted or not p:
                continue
            if self.view.covers(p) and (p not in self.view.listing.blobs or p in self.changed):
                continue
            at = self.live_at(p)
            if at is None or at.id != k.id:
                continue
            self._ids[p] = k.id
            if best is None or p < best:
                best = p
        self._owner[key] = best
        return best

    def take(self, key: str, path: str, artifact_id: str) -> None:
        """A re-read file now holds this id key."""
        self._owner[key] = path
        self._ids[path] = artifact_id

    def is_live(self, artifact_id: str) -> bool:
        """Whether the file holding this id's key declares this id (it stays live)."""
        holder = self.owner(key_of(artifact_id))
        return holder is not None and self._ids.get(holder) == artifact_id

    def removal_candidates(self) -> list[KnownArtifact]:
        """The held artifacts this read may find missing, in id order: every one with the whole
        listing, else those at files in scope and at files another took the id of."""
        if self._whole is not None:
            return sorted(self.known.values(), key=lambda k: k.id)
        seen: dict[str, KnownArtifact] = {}
        for p in sorted((self.view.scope or set()) | self.demoted):
            for k in self._rows_at(p):
                seen.setdefault(k.id, k)
        return [seen[i] for i in sorted(seen)]
