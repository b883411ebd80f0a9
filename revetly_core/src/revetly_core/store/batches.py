"""Id lists sent to SQLite in batches: one size, one helper, under the variable limit."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

ID_BATCH = 400
"""Ids bound per statement; a query naming the batch twice binds 800, far under SQLite's 32,766
(and under the 999 of builds older than 3.32)."""


def batches(ids: Iterable[str], size: int = ID_BATCH) -> Iterator[list[str]]:
    """The ids in consecutive batches of at most ``size``, in the order given (none when empty)."""
    batch: list[str] = []
    for i in ids:
        batch.append(i)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def marks(batch: list[str]) -> str:
    """The ``?,?,…`` placeholders of one batch."""
    return ",".join("?" * len(batch))
