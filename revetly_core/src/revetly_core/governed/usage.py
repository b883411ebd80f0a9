"""record_usage: owner-reported provider usage per run, where a reused receipt never counts twice.

A usage record is keyed by the provider receipt it was observed under. The same receipt with the
same figures is the original record (a retry); the same receipt with another run or other
figures is refused, so a receipt can neither be counted twice nor moved to another run. Every
figure may be unknown (null); a total with an unknown part is null, never a smaller number.
These are partial host reports, not verified billing, and grant no spending authority.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from revetly_core.governed.scope import Scope
from revetly_core.refusal import Refusal

if TYPE_CHECKING:  # FeedbackService's quality report uses this module's totals
    from revetly_core.governed.feedback import FeedbackService
    from revetly_core.governed.principals import Session

USAGE = "usage"
USAGE_LABEL = "partial host reports, not verified billing"
FIGURES = ("usd_micros", "input_tokens", "output_tokens", "model_calls")
MAX_FIGURE = 2**53 - 1
"""The largest figure or total kept exactly (a JSON-safe integer); a larger total is 'overflow'."""


class UsageReport(BaseModel):
    """One observed provider receipt's usage, as the owner reports it (null: unknown)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    provider_receipt: str = Field(min_length=1, max_length=256)
    run_id: str = Field(min_length=1, max_length=128)
    usd_micros: int | None = Field(default=None, ge=0, le=MAX_FIGURE)
    input_tokens: int | None = Field(default=None, ge=0, le=MAX_FIGURE)
    output_tokens: int | None = Field(default=None, ge=0, le=MAX_FIGURE)
    model_calls: int | None = Field(default=None, ge=0, le=MAX_FIGURE)


def parse_usage(data: object) -> UsageReport:
    """A usage report from untrusted input, or a refusal naming the first problem."""
    try:
        return UsageReport.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(usage)"
        raise Refusal("bad_usage", f"{where}: {first['msg']}",
                      "send provider_receipt, run_id and integer (or null) usd_micros, input_tokens, "
                      "output_tokens, model_calls") from None


def usage_record_id(provider_receipt: str) -> str:
    """The one record a provider receipt may ever have in a scope."""
    return "usage-" + hashlib.sha256(provider_receipt.encode()).hexdigest()[:32]


def total(values: Iterable[int | None]) -> int | str | None:
    """A sum where any unknown part makes the total unknown (null) and a too-large one 'overflow'."""
    items = list(values)
    if any(v is None for v in items):
        return None
    result = sum(v for v in items if v is not None)
    return "overflow" if result > MAX_FIGURE else result


def known_subtotal(values: Iterable[int | None]) -> int | str | None:
    """The sum of the parts that are known; null when none is (nothing captured is not zero)."""
    known = [v for v in values if v is not None]
    return total(known) if known else None


def usage_totals(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-figure totals, known subtotals and counts of unknowns over retained usage records."""
    out: dict[str, Any] = {"receipts": len(records), "label": USAGE_LABEL}
    for figure in FIGURES:
        values = [r["usage"][figure] for r in records]
        known = [v for v in values if v is not None]
        out[figure] = {"total": total(values) if records else None,
                       "known_subtotal": known_subtotal(values),
                       "unknown": len(values) - len(known)}
    return out


def usage_of_runs(records: Iterable[dict[str, Any]], runs: Iterable[str]) -> list[dict[str, Any]]:
    """The retained usage records of these runs only (a quality report's scheduled runs)."""
    wanted = set(runs)
    return [r for r in records if r["usage"]["run_id"] in wanted]


def scheduled_usage(records: Iterable[dict[str, Any]], runs: Iterable[str]) -> dict[str, Any]:
    """Usage of a quality report's scheduled runs, per figure: the total (null when any part is
    unknown or any run has no usage captured: missing capture is null, never zero; 'overflow'
    past the bound), the known subtotal (null when nothing was captured) and the unknown parts."""
    run_ids = sorted(set(runs))
    kept = usage_of_runs(records, run_ids)
    captured = {r["usage"]["run_id"] for r in kept}
    missing = [run for run in run_ids if run not in captured]
    out: dict[str, Any] = {"label": USAGE_LABEL, "runs": len(run_ids), "runs_with_usage": len(captured),
                           "runs_missing_usage": missing, "receipts": len(kept)}
    for figure in FIGURES:
        values = [r["usage"][figure] for r in kept]
        known = [v for v in values if v is not None]
        out[figure] = {"total": total([*values, *([None] * len(missing))]) if run_ids else None,
                       "known_subtotal": known_subtotal(values),
                       "unknown": len(values) - len(known) + len(missing)}
    return out


class UsageLedger:
    """Owner-reported usage of one vault, per scope and run."""

    def __init__(self, feedback: FeedbackService) -> None:
        self.feedback = feedback
        self.evidence = feedback.evidence

    def record_usage(self, owner_token: str, scope: Scope, report: UsageReport | dict[str, Any]
                     ) -> dict[str, Any]:
        """Owner only: retain one receipt's usage; the same receipt again never double-counts."""
        self.evidence.principals.require_owner(owner_token)
        usage = report if isinstance(report, UsageReport) else parse_usage(report)
        partition = scope.partition(USAGE)
        record_id = usage_record_id(usage.provider_receipt)
        body = usage.model_dump()
        existing = self.evidence.get(partition, record_id)
        if existing is None:
            record = {"usage_id": record_id, "kind": "usage", "version": 1, "scope": scope.to_dict(),
                      "usage": body, "recorded_at": self.evidence.clock().isoformat(),
                      "verification": "unverified host report"}
            try:
                self.evidence.append(partition, record_id, record)
                return record
            except Refusal as refusal:
                if refusal.code != "record_exists":
                    raise
                existing = self.evidence.get(partition, record_id) or {}
        if existing.get("usage") != body:
            raise Refusal("usage_receipt_reused", "this provider receipt was already recorded with other "
                          "figures or another run", "a receipt counts once, for one run; nothing was changed",
                          {"usage_id": record_id})
        return existing

    def usage(self, session: Session, run_id: str | None = None) -> dict[str, Any]:
        """Totals of the scope's recorded usage, optionally of one run (read grant)."""
        self.feedback.authorize(session, "read")
        records = [r for _, r in self.evidence.records(session.scope.partition(USAGE), "usage-")
                   if run_id is None or r["usage"]["run_id"] == run_id]
        return {"scope": session.scope.to_dict(), "run_id": run_id, **usage_totals(records)}
