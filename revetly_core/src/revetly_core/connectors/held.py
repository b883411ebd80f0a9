"""Looking up what the store holds of a source one artifact at a time.

A pass that changed little should not read every row the store holds of a source. A source
that asks for it (``looks_up_known``) is handed a ``known`` that also answers these lookups;
a plain ``dict`` of known artifacts (a test, a caller without a store) answers them from
memory through :class:`DictHeld`, with the same results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from revetly_core.connectors.base import KnownArtifact
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
