"""Quality-report additions: a schedule's owner-declared task class and versions, the
denominators per class and per version, and diagnostic uncertainty intervals by whole-episode
resampling.

Per class and per version, the denominators (scheduled, observed, missing, succeeded, failed,
unknown) of every schedule are summed under the class or version identifier it declared; a
schedule that declared none (a legacy schedule), or not a given version name, is summed under
``unspecified``. So each grouping accounts for every scheduled task, missing ones included.

An episode is one host run (``run_id``): the tasks it reported are resampled together, because
tasks of one run are not independent. The interval is the 2.5th-97.5th percentile of the
success rate over a fixed number of resamples with a seed derived from the schedule, so the same
observations always give the same interval. Fewer than two observed episodes, or no task with a
succeeded/failed status, is inconclusive. These intervals are diagnostics: they establish
neither statistical power nor qualification nor an improvement.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from revetly_core.governed.scope import check_name
from revetly_core.refusal import Refusal

RESAMPLES = 1000
MAX_VERSIONS = 16
MAX_VERSION_CHARS = 128
UNSPECIFIED = "unspecified"
DENOMINATORS = ("scheduled", "observed", "missing", "succeeded", "failed", "unknown")


def check_task_class(task_class: str | None) -> str | None:
    """A task class is absent or a name (1-64 characters from A-Z a-z 0-9 . _ -)."""
    if task_class is None:
        return None
    try:
        return check_name(task_class, "schedule_id")
    except Refusal:
        raise Refusal("bad_schedule", f"{task_class!r} is not a task class",
                      "use 1-64 characters from A-Z a-z 0-9 . _ -") from None


def check_versions(versions: dict[str, str] | None) -> dict[str, str] | None:
    """Versions are absent or a map of at most 16 names to identifiers of 1-128 characters."""
    if versions is None:
        return None
    if not isinstance(versions, dict) or not 1 <= len(versions) <= MAX_VERSIONS:
        raise Refusal("bad_schedule", f"versions map 1-{MAX_VERSIONS} names to identifiers",
                      'give e.g. {"model": "m-2026-01", "prompt": "v3"}')
    for name, value in versions.items():
        try:
            check_name(name, "schedule_id")
        except Refusal:
            raise Refusal("bad_schedule", f"{name!r} is not a version name",
                          "use 1-64 characters from A-Z a-z 0-9 . _ -") from None
        if not isinstance(value, str) or not 1 <= len(value) <= MAX_VERSION_CHARS:
            raise Refusal("bad_schedule", f"version {name} is not 1-{MAX_VERSION_CHARS} characters",
                          "give each version a short identifier")
    return dict(sorted(versions.items()))


def declared(schedule: dict[str, Any]) -> dict[str, Any]:
    """The class and versions a schedule declares; a legacy schedule shows them unspecified."""
    return {"task_class": schedule.get("task_class") or UNSPECIFIED,
            "versions": schedule.get("versions") or UNSPECIFIED}


def schedule_observations(schedule: dict[str, Any], observations: Iterable[dict[str, Any]]
                          ) -> tuple[list[dict[str, Any]], int]:
    """The observations a frozen schedule counts (those naming it, reported at or after it was
    frozen: its tasks, class and versions come before its observations) and how many named it
    earlier (never counted)."""
    frozen_at = datetime.fromisoformat(schedule["frozen_at"])
    named = [o for o in observations if o["report"].get("schedule_id") == schedule["schedule_id"]]
    counted = [o for o in named if datetime.fromisoformat(o["reported_at"]) >= frozen_at]
    return counted, len(named) - len(counted)


def denominators(counts: dict[str, Any]) -> dict[str, int]:
    """The denominators of a schedule's counts (no rates, no per-task list)."""
    return {name: int(counts[name]) for name in DENOMINATORS}


def _add(groups: dict[str, dict[str, int]], label: str, counts: dict[str, Any]) -> None:
    group = groups.setdefault(label, dict.fromkeys(DENOMINATORS, 0))
    for name in DENOMINATORS:
        group[name] += int(counts[name])


def by_class_and_version(entries: Iterable[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Denominators summed per task class and per version name and identifier over (schedule,
    counts) pairs; what a schedule did not declare is summed under unspecified."""
    pairs = list(entries)
    names = sorted({name for schedule, _ in pairs for name in (schedule.get("versions") or {})})
    by_class: dict[str, dict[str, int]] = {}
    by_version: dict[str, dict[str, dict[str, int]]] = {name: {} for name in names or [UNSPECIFIED]}
    for schedule, counts in pairs:
        _add(by_class, schedule.get("task_class") or UNSPECIFIED, counts)
        versions = schedule.get("versions") or {}
        for name in by_version:
            _add(by_version[name], versions.get(name, UNSPECIFIED), counts)
    return {"by_class": by_class, "by_version": by_version}


def episode_outcomes(latest: dict[str, dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Per episode (run_id): (succeeded, succeeded+failed) over the tasks whose latest
    observation it made; unknown statuses are not in the success denominator."""
    episodes: dict[str, tuple[int, int]] = {}
    for observation in latest.values():
        status = observation["status"]
        if status not in ("succeeded", "failed"):
            continue
        wins, total = episodes.get(observation["run_id"], (0, 0))
        episodes[observation["run_id"]] = (wins + (status == "succeeded"), total + 1)
    return episodes


def success_interval(episodes: dict[str, tuple[int, int]], seed_text: str) -> dict[str, Any]:
    """A diagnostic 95% interval of the success rate by resampling whole episodes, or inconclusive."""
    method = {"method": "whole-episode bootstrap", "resamples": RESAMPLES, "clusters": len(episodes),
              "note": "diagnostic only: not statistical power, qualification or an improvement"}
    if len(episodes) < 2:
        return {**method, "inconclusive": "fewer than two observed episodes", "low": None, "high": None}
    if sum(total for _, total in episodes.values()) == 0:
        return {**method, "inconclusive": "zero denominator", "low": None, "high": None}
    rng = random.Random(int.from_bytes(hashlib.sha256(seed_text.encode()).digest()[:8], "big"))
    values = list(episodes.values())
    rates: list[float] = []
    for _ in range(RESAMPLES):
        draw = [values[rng.randrange(len(values))] for _ in values]
        total = sum(t for _, t in draw)
        if total:
            rates.append(sum(w for w, _ in draw) / total)
    rates.sort()
    low = rates[int(0.025 * (len(rates) - 1))]
    high = rates[int(0.975 * (len(rates) - 1))]
    return {**method, "inconclusive": None, "low": round(low, 6), "high": round(high, 6)}
