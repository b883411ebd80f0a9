"""The read budget: every answer fits a byte budget by dropping whole rows, and says so."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.answers.common import CutReport

DEFAULT_READ_BUDGET = 32_768
ENV_READ_BUDGET = "REVETLY_READ_BUDGET"
MIN_READ_BUDGET = 1_024
BUDGET_REASON = "read-budget"

Payload = TypeVar("Payload", bound=Mapping[str, object])
"""Any answer: a plain dict or one of revetly_core.answers' TypedDicts."""


def payload_bytes(value: Any) -> int:
    """The size a payload is measured at: compact UTF-8 JSON."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def read_budget(configured: int, env: Mapping[str, str] | None = None) -> int:
    """The budget in force: REVETLY_READ_BUDGET when set, else the instance's [read] budget."""
    env = os.environ if env is None else env
    raw = env.get(ENV_READ_BUDGET)
    if not raw:
        return configured
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < MIN_READ_BUDGET:
        raise Refusal(
            "refused", f"{ENV_READ_BUDGET}={raw!r} is not a whole number of bytes ≥ {MIN_READ_BUDGET}",
            f"unset {ENV_READ_BUDGET} or give it a byte count such as {DEFAULT_READ_BUDGET}",
            {"setting": ENV_READ_BUDGET},
        )
    return value


@dataclass(frozen=True)
class Cut:
    """One list an answer may shorten, from its tail, and the key that reports the cut."""

    path: tuple[str, ...]
    report: str

    def rows(self, payload: Mapping[str, object]) -> list[Any] | None:
        node: Any = payload
        for part in self.path:
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node if isinstance(node, list) else None

    def parent(self, payload: Mapping[str, object]) -> dict[str, Any]:
        node: Any = payload
        for part in self.path[:-1]:
            node = node[part]
        return node  # type: ignore[no-any-return]


def cut_report(total: int, listed: int, budget: int) -> CutReport:
    """How a cut is named: its reason, what the whole holds and what was listed."""
    return {
        "reason": BUDGET_REASON,
        "total": total,
        "listed": listed,
        "note": f"cut to fit the {budget}-byte read budget",
    }


def fit(payload: Payload, cuts: list[Cut], budget: int) -> Payload:
    """Drop whole rows from each list's tail, in the cuts' order, until the payload fits.

    A list is emptied before the next one in order is touched; each list cut carries a report
    beside it (in the same object) naming the reason, the whole count and the rows listed.
    Values are never cut inside. The payload is changed in place and returned.
    """
    size = payload_bytes(payload)
    if size <= budget:
        return payload
    for cut in cuts:
        rows = cut.rows(payload)
        if not rows:
            continue
        total = len(rows)
        parent = cut.parent(payload)
        existing = parent.get(cut.report)
        base_total = existing["total"] if isinstance(existing, dict) and "total" in existing else total
        parent[cut.report] = cut_report(base_total, len(rows), budget)
        sizes = [payload_bytes(r) + 1 for r in rows]
        size = payload_bytes(payload)
        while rows and size > budget:
            size -= sizes.pop()
            rows.pop()
            if not rows:
                size -= 1  # no comma-separated row remains; the brackets stay
        parent[cut.report] = cut_report(base_total, len(rows), budget)
        size = payload_bytes(payload)
        while rows and size > budget:  # the report's own digits may have tipped it over
            rows.pop()
            parent[cut.report] = cut_report(base_total, len(rows), budget)
            size = payload_bytes(payload)
        if size <= budget:
            break
    return payload
