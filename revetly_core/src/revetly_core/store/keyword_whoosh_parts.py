"""The whoosh filter that gives a dotted token its parts, as `keyword.analyze` does for FTS5.

Its own module, imported only when a whoosh index is analysed: whoosh pickles an index's
analyzer with its schema, so the filter class must be importable by name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from whoosh.analysis import Filter

from revetly_core.store.keyword import dotted_parts


class DottedPartsFilter(Filter):  # type: ignore[misc]
    """Each token, then each of its `dotted_parts` at the following positions (the stop filter
    after it renumbers them, as the FTS5 index numbers the space-joined terms)."""

    def __call__(self, tokens: Iterator[Any]) -> Iterator[Any]:
        for t in tokens:
            parts = dotted_parts(t.text)
            yield t
            for part in parts:
                t.text = part
                yield t
