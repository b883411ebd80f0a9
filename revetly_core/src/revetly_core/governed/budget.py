"""The result budget: an answer too large for one frame is an explicit error, never a silent cut."""

from __future__ import annotations

import json
from typing import Any

from revetly_core.refusal import Refusal

DEFAULT_RESULT_BUDGET = 448 * 1024
"""Bytes of JSON a tool result may carry; the stdio frame (1 MiB) holds it twice with room to spare."""


def enforce_result_budget(payload: dict[str, Any], budget: int = DEFAULT_RESULT_BUDGET) -> dict[str, Any]:
    """Return the payload if its JSON fits the budget; otherwise refuse with result_budget_exhausted."""
    size = len(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > budget:
        raise Refusal("result_budget_exhausted",
                      f"the complete result is {size} bytes, over the {budget}-byte response budget",
                      "inspect individual outcomes, or use the authenticated CLI/API for the full report; "
                      "nothing was truncated or erased", {"size": size, "budget": budget})
    return payload
