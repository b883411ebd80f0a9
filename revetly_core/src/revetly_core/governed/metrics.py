"""Process-local operational metrics: per scope and closed operation, counters and p50/p95.

They hold no passages, arguments, tokens or provider error text: only an operation name from a
closed list, an outcome class and a duration. At most 64 scopes are tracked; a scope beyond that
is counted as dropped and never blocks the call it measures.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from revetly_core.refusal import Refusal

OPERATIONS = ("feedback_capabilities", "feedback_outcome", "feedback_quality", "feedback_report_outcome",
              "guarded_execute", "guarded_inspect", "guarded_tools", "rag_inspect", "rag_search",
              "rag_sources", "verify",
              "feedback_propose_profile", "feedback_propose_rule")
WINDOW = 256
MAX_SCOPES = 64


def percentile(samples: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of the samples; None when there are none."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, -(-int(fraction * 1000) * len(ordered) // 1000))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass
class _Series:
    ok: int = 0
    refused: int = 0
    failed: int = 0
    durations: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))

    def to_dict(self) -> dict[str, Any]:
        samples = list(self.durations)
        p50, p95 = percentile(samples, 0.5), percentile(samples, 0.95)
        return {"calls": self.ok + self.refused + self.failed, "ok": self.ok, "refused": self.refused,
                "failed": self.failed, "window": len(samples),
                "p50_ms": None if p50 is None else round(p50 * 1000, 3),
                "p95_ms": None if p95 is None else round(p95 * 1000, 3)}


class OperationalMetrics:
    """Counters and latency windows, keyed by scope and operation."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._series: dict[str, dict[str, _Series]] = {}
        self.dropped_scopes = 0

    def record(self, scope_key: str, operation: str, outcome: str, seconds: float) -> None:
        """Count one call; an unknown operation or a 65th scope is dropped, never an error."""
        if operation not in OPERATIONS:
            return
        with self._lock:
            per_scope = self._series.get(scope_key)
            if per_scope is None:
                if len(self._series) >= MAX_SCOPES:
                    self.dropped_scopes += 1
                    return
                per_scope = self._series[scope_key] = {}
            series = per_scope.setdefault(operation, _Series())
            setattr(series, outcome, getattr(series, outcome) + 1)
            series.durations.append(seconds)

    @contextmanager
    def measure(self, scope_key: str, operation: str) -> Iterator[None]:
        """Time the enclosed call and count it as ok, refused (a Refusal) or failed (anything else)."""
        start = time.monotonic()
        outcome = "failed"
        try:
            yield
            outcome = "ok"
        except Refusal:
            outcome = "refused"
            raise
        finally:
            self.record(scope_key, operation, outcome, time.monotonic() - start)

    def snapshot(self, scope_key: str) -> dict[str, Any]:
        """The scope's counters per operation (every closed operation listed, zero when unused)."""
        with self._lock:
            per_scope = self._series.get(scope_key, {})
            return {op: (per_scope[op].to_dict() if op in per_scope else _Series().to_dict())
                    for op in OPERATIONS}
