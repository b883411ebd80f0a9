"""Quality reports: owner-declared task class and versions, and whole-episode uncertainty intervals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.governed.quality import (
    RESAMPLES,
    by_class_and_version,
    check_versions,
    declared,
    denominators,
    episode_outcomes,
    schedule_observations,
    success_interval,
)

from revetly_core import Refusal
from tests.core.governed.governed_world import World


def _report(world: World, task: str, run: str, status: str, key: str) -> None:
    world.feedback.report_outcome(world.session, {"run_id": run, "task_id": task, "status": status,
                                                  "schedule_id": "s1"}, key)


def test_a_legacy_schedule_shows_class_and_versions_unspecified() -> None:
    assert declared({"tasks": ["t"]}) == {"task_class": "unspecified", "versions": "unspecified"}


def test_versions_are_a_bounded_map_of_names_to_identifiers() -> None:
    assert check_versions({"prompt": "v3", "model": "m-1"}) == {"model": "m-1", "prompt": "v3"}
    for bad in ({}, {f"v{i}": "x" for i in range(17)}, {"a b": "x"}, {"model": ""}):
        with pytest.raises(Refusal) as refused:
            check_versions(bad)
        assert refused.value.code == "bad_schedule"


def test_episodes_group_tasks_by_run_and_leave_unknown_out_of_the_denominator() -> None:
    latest = {"t1": {"run_id": "r1", "status": "succeeded"}, "t2": {"run_id": "r1", "status": "failed"},
              "t3": {"run_id": "r2", "status": "unknown"}}
    assert episode_outcomes(latest) == {"r1": (1, 2)}


def test_fewer_than_two_episodes_or_a_zero_denominator_is_inconclusive() -> None:
    one = success_interval({"r1": (3, 4)}, "seed")
    assert one["inconclusive"] == "fewer than two observed episodes" and one["low"] is None
    assert success_interval({}, "seed")["inconclusive"]
    zero = success_interval({"r1": (0, 0), "r2": (0, 0)}, "seed")
    assert zero["inconclusive"] == "zero denominator"


@given(st.dictionaries(st.text("abc", min_size=1, max_size=3),
                       st.tuples(st.integers(0, 5), st.integers(1, 5)).map(lambda p: (min(p), p[1])),
                       min_size=2, max_size=8))
def test_an_interval_lies_within_zero_and_one_and_is_reproducible(
        episodes: dict[str, tuple[int, int]]) -> None:
    interval = success_interval(episodes, "s")
    assert 0.0 <= interval["low"] <= interval["high"] <= 1.0
    assert success_interval(episodes, "s") == interval
    assert interval["resamples"] == RESAMPLES and interval["clusters"] == len(episodes)


def test_the_quality_report_carries_the_declared_class_versions_and_interval(world: World) -> None:
    world.feedback.freeze_schedule(world.owner, world.scope, "s1", ["t1", "t2", "t3", "t4"],
                                   task_class="notices", versions={"model": "m-1", "prompt": "v3"})
    _report(world, "t1", "run-a", "succeeded", "k1")
    _report(world, "t2", "run-a", "failed", "k2")
    _report(world, "t3", "run-b", "succeeded", "k3")
    report = world.feedback.quality(world.session, "s1")
    assert report["task_class"] == "notices" and report["versions"] == {"model": "m-1", "prompt": "v3"}
    assert (report["scheduled"], report["observed"], report["missing"]) == (4, 3, 1)
    success = report["uncertainty"]["success"]
    assert success["clusters"] == 2 and success["inconclusive"] is None
    assert success["low"] <= report["rates"]["success"] <= success["high"]


def test_a_schedule_without_class_or_versions_reports_them_unspecified(world: World) -> None:
    world.feedback.freeze_schedule(world.owner, world.scope, "s1", ["t1"])
    _report(world, "t1", "run-a", "succeeded", "k1")
    report = world.feedback.quality(world.session, "s1")
    assert report["task_class"] == "unspecified" and report["versions"] == "unspecified"
    assert report["uncertainty"]["success"]["inconclusive"] == "fewer than two observed episodes"


def test_versions_given_on_the_command_line_are_name_id_pairs_each_once() -> None:
    from revetly_core.governed.owner import parse_versions

    assert parse_versions([]) is None
    assert parse_versions(["model=m-1", "prompt=v=3"]) == {"model": "m-1", "prompt": "v=3"}
    for bad in (["model"], ["model=a", "model=b"]):
        with pytest.raises(Refusal) as refused:
            parse_versions(bad)
        assert refused.value.code == "bad_schedule"


def _counts(scheduled: int, observed: int, succeeded: int = 0, failed: int = 0) -> dict[str, int]:
    return {"scheduled": scheduled, "observed": observed, "missing": scheduled - observed,
            "succeeded": succeeded, "failed": failed, "unknown": observed - succeeded - failed}


def test_denominators_are_summed_per_class_and_per_version_identifier() -> None:
    grouped = by_class_and_version([
        ({"task_class": "notices", "versions": {"model": "m-1", "prompt": "v3"}}, _counts(4, 3, 2, 1)),
        ({"task_class": "notices", "versions": {"model": "m-2"}}, _counts(2, 0)),
        ({"task_class": "refunds", "versions": {"model": "m-1"}}, _counts(1, 1, 1)),
    ])
    assert grouped["by_class"]["notices"] == _counts(6, 3, 2, 1)
    assert grouped["by_class"]["refunds"] == _counts(1, 1, 1)
    assert grouped["by_version"]["model"] == {"m-1": _counts(5, 4, 3, 1), "m-2": _counts(2, 0)}
    assert grouped["by_version"]["prompt"] == {"v3": _counts(4, 3, 2, 1), "unspecified": _counts(3, 1, 1)}


def test_every_grouping_keeps_every_scheduled_task_missing_ones_included() -> None:
    entries = [({"task_class": "a", "versions": {"model": "m"}}, _counts(5, 2)), ({}, _counts(3, 0))]
    grouped = by_class_and_version(entries)
    for groups in [grouped["by_class"], *grouped["by_version"].values()]:
        assert sum(g["scheduled"] for g in groups.values()) == 8
        assert sum(g["missing"] for g in groups.values()) == 6


def test_legacy_schedules_group_under_unspecified_class_and_versions() -> None:
    grouped = by_class_and_version([({"schedule_id": "old"}, _counts(2, 1, 1))])
    assert grouped["by_class"] == {"unspecified": _counts(2, 1, 1)}
    assert grouped["by_version"] == {"unspecified": {"unspecified": _counts(2, 1, 1)}}


def test_the_quality_report_carries_its_denominators_per_class_and_version(world: World) -> None:
    world.feedback.freeze_schedule(world.owner, world.scope, "s1", ["t1", "t2"], task_class="notices",
                                   versions={"model": "m-1"})
    _report(world, "t1", "run-a", "succeeded", "k1")
    report = world.feedback.quality(world.session, "s1")
    assert report["denominators"]["by_class"] == {"notices": denominators(report)}
    assert report["denominators"]["by_version"] == {"model": {"m-1": denominators(report)}}
    assert denominators(report) == _counts(2, 1, 1)


def test_the_quality_summary_groups_every_frozen_schedule_of_the_scope(world: World) -> None:
    world.feedback.freeze_schedule(world.owner, world.scope, "s1", ["t1", "t2"], task_class="notices",
                                   versions={"model": "m-1"})
    world.feedback.freeze_schedule(world.owner, world.scope, "legacy", ["t1", "t3", "t4"])
    _report(world, "t1", "run-a", "succeeded", "k1")
    summary = world.feedback.quality_summary(world.session)
    assert [s["schedule_id"] for s in summary["schedules"]] == ["legacy", "s1"]
    assert summary["schedules"][0]["task_class"] == "unspecified"
    assert summary["by_class"] == {"notices": _counts(2, 1, 1), "unspecified": _counts(3, 0)}
    assert summary["by_version"] == {"model": {"m-1": _counts(2, 1, 1), "unspecified": _counts(3, 0)}}


def test_observations_reported_before_the_freeze_are_never_counted(world: World) -> None:
    _report(world, "t1", "run-a", "succeeded", "k1")
    world.clock.advance(minutes=1)
    world.feedback.freeze_schedule(world.owner, world.scope, "s1", ["t1", "t2"], task_class="notices")
    _report(world, "t2", "run-b", "failed", "k2")
    report = world.feedback.quality(world.session, "s1")
    assert (report["observed"], report["missing"], report["reported_before_freeze"]) == (1, 1, 1)
    assert [t["status"] for t in report["tasks"]] == [None, "failed"]
    assert world.feedback.quality_summary(world.session)["by_class"]["notices"]["observed"] == 1


def test_an_observation_at_the_freeze_instant_counts_and_other_schedules_do_not() -> None:
    schedule = {"schedule_id": "s1", "frozen_at": "2026-01-01T12:00:00+00:00"}
    at, early, other = ({"report": {"schedule_id": sid}, "reported_at": when} for sid, when in (
        ("s1", "2026-01-01T12:00:00+00:00"), ("s1", "2026-01-01T11:59:59+00:00"),
        ("s2", "2026-01-01T13:00:00+00:00")))
    assert schedule_observations(schedule, [at, early, other]) == ([at], 1)
