"""FeedbackService: capabilities, retained outcomes, schedule quality counts and operational metrics.

Host reports are appended as *unverified* observations attributed to the reporting principal;
nothing here reviews, verifies or activates anything. Quality counts are computed only over a
schedule the owner froze beforehand, so the denominator never comes from the reports themselves.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from revetly_core.governed.adoption import require_feedback_allowed
from revetly_core.governed.idempotency import check_key, record_id_for, replay_or_refuse, request_digest
from revetly_core.governed.metrics import OperationalMetrics
from revetly_core.governed.principals import Session
from revetly_core.governed.quality import (
    by_class_and_version,
    check_task_class,
    check_versions,
    declared,
    denominators,
    episode_outcomes,
    schedule_observations,
    success_interval,
)
from revetly_core.governed.scope import Scope, check_name
from revetly_core.governed.usage import USAGE, scheduled_usage
from revetly_core.governed.vault import CONTROL, EvidenceService
from revetly_core.refusal import Refusal

MAX_SCHEDULE_TASKS = 1000
OUTCOMES = "outcomes"


class OutcomeReport(BaseModel):
    """What a host may report about one task run (validated at the boundary)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str = Field(min_length=1, max_length=128)
    task_id: str = Field(min_length=1, max_length=128)
    status: Literal["succeeded", "failed", "unknown"]
    schedule_id: str | None = Field(default=None, max_length=64)
    receipts: list[str] = Field(default_factory=list, max_length=32)
    note: str = Field(default="", max_length=4000)


def parse_outcome(data: object) -> OutcomeReport:
    """A report from untrusted JSON, or a refusal naming what is wrong."""
    try:
        return OutcomeReport.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(report)"
        raise Refusal("bad_outcome", f"{where}: {first['msg']}",
                      "send {run_id, task_id, status: succeeded|failed|unknown, schedule_id?, "
                      "receipts?, note?}") from None


def rate(numerator: int, denominator: int) -> float | None:
    """A rate, or None (null) when the denominator is zero: an undefined rate is never 0."""
    return None if denominator == 0 else round(numerator / denominator, 6)


def quality_counts(tasks: list[str], observations: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over a frozen schedule: each task's latest observation; tasks never reported are missing."""
    latest: dict[str, str] = {}
    for obs in observations:
        if obs["report"]["task_id"] in tasks:
            latest[obs["report"]["task_id"]] = obs["report"]["status"]
    counts = {status: sum(1 for s in latest.values() if s == status)
              for status in ("succeeded", "failed", "unknown")}
    scheduled, observed = len(tasks), len(latest)
    return {"scheduled": scheduled, "observed": observed, "missing": scheduled - observed, **counts,
            "rates": {"observed": rate(observed, scheduled),
                      "success": rate(counts["succeeded"], counts["succeeded"] + counts["failed"])},
            "tasks": [{"task_id": t, "status": latest.get(t)} for t in tasks]}


class FeedbackService:
    """The feedback half of the governed layer over one EvidenceService."""

    def __init__(self, evidence: EvidenceService) -> None:
        self.evidence = evidence
        self.metrics = OperationalMetrics()

    def authorize(self, session: Session, operation: str) -> None:
        """Re-check the session's credential and grants now (called on every call); after a Home
        adoption, evidence-appending operations also wait for the scope's reconciliation."""
        self.evidence.principals.authorize(session, operation)
        require_feedback_allowed(self.evidence, session.scope, operation)

    def capabilities(self, session: Session) -> dict[str, Any]:
        """The session's fixed scope and the operations its live grants allow (any live grant)."""
        with self.metrics.measure(session.scope.key, "feedback_capabilities"):
            grants = self.evidence.principals.live_grants(session)
            if not grants:
                raise Refusal("not_authorized", f"no live grant for this principal in {session.scope.key}",
                              "ask the owner for a grant (it may have expired or been revoked)")
            return {"principal_id": session.principal_id, "scope": session.scope.to_dict(),
                    "operations": sorted({op for g in grants for op in g.operations}),
                    "grants": [g.to_dict() for g in grants],
                    "note": "server-side checks decide every call; "
                            "tools outside this server are not governed"}

    def report_outcome(self, session: Session, outcome: OutcomeReport | dict[str, Any],
                       idempotency_key: str) -> dict[str, Any]:
        """Append an attributable, unverified observation; the same key and report return the original."""
        with self.metrics.measure(session.scope.key, "feedback_report_outcome"):
            self.authorize(session, "report")
            report = outcome if isinstance(outcome, OutcomeReport) else parse_outcome(outcome)
            check_key(idempotency_key)
            partition = session.scope.partition(OUTCOMES)
            outcome_id = record_id_for("out", session.principal_id, session.scope.key, "outcome",
                                       idempotency_key)
            body = report.model_dump()
            digest = request_digest({"principal_id": session.principal_id, "report": body})
            existing = self.evidence.get(partition, outcome_id)
            if existing is not None:
                return replay_or_refuse(existing, digest)
            record = {"outcome_id": outcome_id, "kind": "outcome", "version": 1,
                      "scope": session.scope.to_dict(), "reported_by": session.principal_id,
                      "reported_at": self.evidence.clock().isoformat(), "verification": "unverified",
                      "request_sha256": digest, "report": body}
            self.authorize(session, "report")
            try:
                self.evidence.append(partition, outcome_id, record)
            except Refusal as refusal:
                if refusal.code != "record_exists":
                    raise
                return replay_or_refuse(self.evidence.get(partition, outcome_id) or {}, digest)
            return record

    def outcome(self, session: Session, outcome_id: str) -> dict[str, Any]:
        """One retained observation of this scope, exactly as retained."""
        with self.metrics.measure(session.scope.key, "feedback_outcome"):
            self.authorize(session, "read")
            check_name(outcome_id, "outcome_id")
            record = self.evidence.get(session.scope.partition(OUTCOMES), outcome_id)
            if record is None:
                raise Refusal("no_outcome", f"no outcome {outcome_id} in this scope",
                              "use the outcome_id returned by feedback_report_outcome")
            return record

    def freeze_schedule(self, owner_token: str, scope: Scope, schedule_id: str,
                        tasks: Iterable[str], *, task_class: str | None = None,
                        versions: dict[str, str] | None = None) -> dict[str, Any]:
        """Owner only: fix a schedule's task list (and, optionally, its task class and versions)
        before any observation; it can never change."""
        self.evidence.principals.require_owner(owner_token)
        check_name(schedule_id, "schedule_id")
        task_list = list(dict.fromkeys(tasks))
        if not task_list or len(task_list) > MAX_SCHEDULE_TASKS:
            raise Refusal("bad_schedule", f"a schedule lists 1-{MAX_SCHEDULE_TASKS} tasks", "list the tasks")
        record_id = f"schedule:{scope.key}:{schedule_id}"
        if self.evidence.get(CONTROL, record_id) is not None:
            raise Refusal("schedule_frozen", f"schedule {schedule_id} is already frozen",
                          "a frozen schedule never changes; freeze a new schedule id")
        record: dict[str, Any] = {"schedule_id": schedule_id, "scope": scope.to_dict(), "tasks": task_list,
                                  "frozen_at": self.evidence.clock().isoformat()}
        # schedule class and versions (issue 19): owner-declared, absent on legacy schedules
        if task_class is not None or versions is not None:
            record.update({"task_class": check_task_class(task_class), "versions": check_versions(versions)})
        self.evidence.append(CONTROL, record_id, record)
        return record

    def quality(self, session: Session, schedule_id: str) -> dict[str, Any]:
        """Counts for an owner-frozen schedule of this scope; undefined rates are null."""
        with self.metrics.measure(session.scope.key, "feedback_quality"):
            self.authorize(session, "read")
            check_name(schedule_id, "schedule_id")
            schedule = self.evidence.get(CONTROL, f"schedule:{session.scope.key}:{schedule_id}")
            if schedule is None:
                raise Refusal("no_schedule", f"no frozen schedule {schedule_id} in this scope",
                              "the owner freezes schedules before observations are counted")
            observations, earlier = schedule_observations(
                schedule, (r for _, r in self.evidence.records(session.scope.partition(OUTCOMES), "out-")))
            counts = quality_counts(schedule["tasks"], observations)
            latest = {o["report"]["task_id"]: o["report"] for o in observations
                      if o["report"]["task_id"] in schedule["tasks"]}
            scheduled = [o["report"] for o in observations if o["report"]["task_id"] in schedule["tasks"]]
            usage = [r for _, r in self.evidence.records(session.scope.partition(USAGE), "usage-")]
            return {"schedule_id": schedule_id, "scope": session.scope.to_dict(),
                    "verification": "unverified host reports", **declared(schedule), **counts,
                    "reported_before_freeze": earlier,
                    "denominators": by_class_and_version([(schedule, counts)]),
                    "uncertainty": {"success": success_interval(episode_outcomes(latest),
                                                                f"{session.scope.key}/{schedule_id}")},
                    "usage": scheduled_usage(usage, (o["run_id"] for o in scheduled))}

    def quality_summary(self, session: Session) -> dict[str, Any]:
        """Every frozen schedule of this scope (by id) with its denominators, and their sums per
        task class and per version (read grant); legacy schedules count as unspecified."""
        with self.metrics.measure(session.scope.key, "feedback_quality"):
            self.authorize(session, "read")
            frozen = self.evidence.records(CONTROL, f"schedule:{session.scope.key}:")
            schedules = sorted((r for _, r in frozen), key=lambda r: str(r["schedule_id"]))
            observations = [r for _, r in self.evidence.records(session.scope.partition(OUTCOMES), "out-")]
            entries = [(schedule, quality_counts(schedule["tasks"],
                                                 schedule_observations(schedule, observations)[0]))
                       for schedule in schedules]
            return {"scope": session.scope.to_dict(), "verification": "unverified host reports",
                    "schedules": [{"schedule_id": schedule["schedule_id"], **declared(schedule),
                                   **denominators(counts)} for schedule, counts in entries],
                    **by_class_and_version(entries)}

    def operational_metrics(self, session: Session) -> dict[str, Any]:
        """This scope's per-operation counters and p50/p95 over the last 256 calls (process-local)."""
        if not self.evidence.principals.live_grants(session):
            raise Refusal("not_authorized", f"no live grant for this principal in {session.scope.key}",
                          "ask the owner for a grant")
        return {"scope": session.scope.to_dict(), "window": 256,
                "operations": self.metrics.snapshot(session.scope.key)}
