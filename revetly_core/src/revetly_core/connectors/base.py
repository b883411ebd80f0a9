"""The protocol every source connector implements, and what one read of a source yields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from revetly_core.model import Artifact, HistoryEntry
from revetly_core.progress import Progress as Progress
from revetly_core.progress import no_progress as no_progress

if TYPE_CHECKING:
    from revetly_core.answers.maintenance import CheckProblem


@dataclass(frozen=True)
class FileProblem:
    """A source file that breaks the schema: named by check, skipped by the pass."""

    source: str
    path: str
    code: str
    detail: str
    blob: str | None = None
    severity: str | None = None
    """'error', 'warning' or 'note'; None leaves it to the code (see reads/check.py)."""

    def payload(self) -> CheckProblem:
        out: CheckProblem = {"source": self.source, "path": self.path, "code": self.code,
                             "detail": self.detail}
        if self.severity is not None:
            out["severity"] = self.severity
        return out


@dataclass(frozen=True)
class Removal:
    """An artifact the source no longer has, and which clock dates the removal."""

    artifact_id: str
    deleted_at: str | None
    clock: str
    note: str | None = None


class KnownArtifact(NamedTuple):
    """What the store already holds for one artifact of a source: enough to detect change
    (a named tuple: a pass makes one per held artifact, 100,000 on a large instance)."""

    id: str
    path: str | None
    blob: str | None
    deleted: bool
    deleted_at: str | None
    deleted_clock: str | None


@dataclass
class SourceBatch:
    """What one read of a source found: changed artifacts, removals, history and its state."""

    source: str
    upserts: list[Artifact] = field(default_factory=list)
    removals: list[Removal] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    cleared_paths: set[str] = field(default_factory=set)
    """Paths re-read by this batch: their previous problems no longer hold unless re-reported."""
    cursor: dict[str, Any] = field(default_factory=dict)
    floor: str | None = None
    gaps: list[str] = field(default_factory=list)
    partial: bool = False
    complete: bool = True
    """True when the read covered the whole source (a full listing), not a window of it."""
    read_count: int = 0
    history_complete: bool = True
    """True when ``history`` is the source's whole history (it replaces what the store held)."""
    known: dict[str, KnownArtifact] = field(default_factory=dict)
    """What the store held of this source when the read began (set by the pass)."""


class Connector(Protocol):
    """A source of artifacts. ``read`` never raises for one bad file: it reports a problem."""

    source_id: str
    project: str

    def read(
        self,
        known: dict[str, KnownArtifact],
        cursor: dict[str, Any],
        *,
        full: bool,
        now: str,
        progress: Progress = no_progress,
    ) -> SourceBatch:
        """Read what changed since ``cursor`` (everything when ``full``)."""
        ...


Sink = Callable[[Artifact], bool]
"""Where a streaming read hands each artifact over as soon as it is parsed; False when the
store cannot hold it (the sink names its file as a problem)."""


class StreamingConnector(Connector, Protocol):
    """A connector that can hand its artifacts to a sink while it reads (``streams_upserts``),
    so the pass writes them in chunks instead of holding every parsed artifact at once."""

    streams_upserts: bool

    def read(
        self,
        known: dict[str, KnownArtifact],
        cursor: dict[str, Any],
        *,
        full: bool,
        now: str,
        progress: Progress = no_progress,
        sink: Sink | None = None,
    ) -> SourceBatch:
        """Read as ``Connector.read``; each artifact of a changed file goes to ``sink`` (when
        given) instead of ``upserts``."""
        ...
