"""``known`` read from the store on demand: one row per lookup, every row only when iterated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, TypeVar, overload

from revetly_core.connectors.base import KnownArtifact

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values

    from revetly_core.store.protocols import Store

_T = TypeVar("_T")


class StoredKnown(dict[str, KnownArtifact]):
    """What the store holds of one source, as the ``dict`` a connector reads, loaded lazily.

    Looking up one id (``get``, ``[]``, ``in``) reads one row; iterating, ``len`` or any view
    reads every row once (``Store.known``), after which it is a plain dict. It also answers the
    :class:`~revetly_core.connectors.held.HeldLookup` lookups by path and by id key, so a read
    that changed little never reads the rest. Read only: the pass never changes ``known``."""

    def __init__(self, store: Store, source: str) -> None:
        super().__init__()
        self._store, self._source = store, source
        self._loaded = False
        self._looked: dict[str, KnownArtifact | None] = {}

    def _load(self) -> None:
        if not self._loaded:
            super().update(self._store.known(self._source))
            self._loaded = True

    def by_id(self, artifact_id: str) -> KnownArtifact | None:
        """The held artifact with this id, or None."""
        if self._loaded:
            return super().get(artifact_id)
        if artifact_id not in self._looked:
            self._looked[artifact_id] = self._store.known_of_id(self._source, artifact_id)
        return self._looked[artifact_id]

    def at_path(self, path: str) -> list[KnownArtifact]:
        """Every artifact of the source read from this path (deleted ones too), in id order."""
        return self._store.known_at_path(self._source, path)

    def with_key(self, key_text: str) -> list[KnownArtifact]:
        """Every artifact of the source whose id has this key, in id order."""
        return self._store.known_with_key(self._source, key_text)

    def __getitem__(self, artifact_id: str) -> KnownArtifact:
        found = self.by_id(artifact_id)
        if found is None:
            raise KeyError(artifact_id)
        return found

    @overload
    def get(self, artifact_id: str, default: None = None, /) -> KnownArtifact | None: ...

    @overload
    def get(self, artifact_id: str, default: KnownArtifact, /) -> KnownArtifact: ...

    @overload
    def get(self, artifact_id: str, default: _T, /) -> KnownArtifact | _T: ...

    def get(self, artifact_id: str, default: object = None, /) -> object:
        found = self.by_id(artifact_id)
        return default if found is None else found

    def __contains__(self, artifact_id: object) -> bool:
        return isinstance(artifact_id, str) and self.by_id(artifact_id) is not None

    def __iter__(self) -> Iterator[str]:
        self._load()
        return super().__iter__()

    def __len__(self) -> int:
        self._load()
        return super().__len__()

    def keys(self) -> dict_keys[str, KnownArtifact]:
        self._load()
        return super().keys()

    def values(self) -> dict_values[str, KnownArtifact]:
        self._load()
        return super().values()

    def items(self) -> dict_items[str, KnownArtifact]:
        self._load()
        return super().items()

    def __eq__(self, other: object) -> bool:
        self._load()
        return super().__eq__(other)

    def __repr__(self) -> str:
        self._load()
        return super().__repr__()
