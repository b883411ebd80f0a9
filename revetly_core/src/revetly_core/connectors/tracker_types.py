"""How a tracker item gets its artifact type: the source's type map over its native type and
labels. An item no map covers keeps its source's own word and says why (``untyped`` /
``unmapped``), which is what the ``outside_backlog`` block reads from the store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TypeReading:
    """The type an item ingests with, and what decided it."""

    type: str
    typed_by: str | None
    """``native_type:<name>`` or ``label:<name>``; None when no map entry matched."""
    why: str | None
    """``untyped`` (no native type, no mapped label) or ``unmapped`` (a native type the map
    leaves out); None when typed."""

    def metadata(self) -> dict[str, str]:
        """The keys this reading adds to the artifact's metadata."""
        if self.typed_by is not None:
            return {"typed_by": self.typed_by}
        return {"untyped_why": self.why or "untyped"}


def item_type(native_type: str | None, labels: Sequence[str],
              types: Mapping[str, Sequence[str]], own_word: str) -> TypeReading:
    """The item's type from the map: its native type first, then its labels (case-folded, in
    the map's order); no match keeps ``own_word`` with why it is outside the backlog."""
    names = {typ: {w.casefold() for w in words} for typ, words in types.items()}
    if native_type:
        for typ, words in names.items():
            if native_type.casefold() in words:
                return TypeReading(typ, f"native_type:{native_type}", None)
    folded = [(label, label.casefold()) for label in labels]
    for typ, words in names.items():
        for label, low in folded:
            if low in words:
                return TypeReading(typ, f"label:{label}", None)
    return TypeReading(own_word, None, "unmapped" if native_type else "untyped")
