"""Write adapters: set_status keeps a status, a claim and a delivery note on the tracker that
holds an item (ADR 0029). ``protocol`` is the seam an adapter implements, ``registry`` picks
the adapter by the item's source, ``hook`` is what ``writes/status.py`` calls."""

from revetly_core.writeback.protocol import (
    STEP_CLAIM,
    STEP_DELIVERY_NOTE,
    STEP_STATUS,
    Landed,
    RemoteItem,
    TrackerWriter,
    WritebackFailed,
)
from revetly_core.writeback.registry import WRITERS, WriterFactory, writer_for

__all__ = [
    "STEP_CLAIM",
    "STEP_DELIVERY_NOTE",
    "STEP_STATUS",
    "WRITERS",
    "Landed",
    "RemoteItem",
    "TrackerWriter",
    "WritebackFailed",
    "WriterFactory",
    "writer_for",
]
