"""`revetly backfill`: the history below a commits source's floor, priced and read by window."""

from __future__ import annotations

import datetime as dt

import pytest
from revetly_core.operate.backfill import windows_below
from revetly_core.refusal import Refusal

from tests.core.gitrepo import Instance

FLOOR = dt.date(2024, 4, 1)


def _ts(day: dt.date) -> float:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC).timestamp()


def test_windows_run_newest_first_back_to_the_oldest_commit() -> None:
    times = [_ts(dt.date(2024, 1, 1)), _ts(dt.date(2024, 3, 15))]
    wins = windows_below(times, FLOOR, None, 30)
    assert [(w.start.isoformat(), w.end.isoformat(), w.commits) for w in wins] == [
        ("2024-03-02", "2024-04-01", 1), ("2024-02-01", "2024-03-02", 0),
        ("2024-01-02", "2024-02-01", 0), ("2024-01-01", "2024-01-02", 1)]


def test_a_target_date_stops_the_windows() -> None:
    wins = windows_below([_ts(dt.date(2024, 1, 1))], FLOOR, dt.date(2024, 3, 1), 30)
    assert wins[-1].start == dt.date(2024, 3, 1)


def test_no_history_below_the_floor_gives_no_window() -> None:
    assert windows_below([], FLOOR, None, 30) == []


def test_a_window_of_no_days_is_refused() -> None:
    with pytest.raises(Refusal):
        windows_below([], FLOOR, None, 0)


def test_dry_run_prices_windows_commits_and_time(floored: Instance) -> None:
    before = floored.engine().context_health()["counts"]["artifacts"]
    plan = floored.engine().backfill(dry_run=True)
    (src,) = plan["sources"]
    assert src["source"] == "commits/app"
    assert src["floor"] == "2024-04-01"
    assert src["commits"] == 10  # 2024-01-01 .. 2024-03-21, every 10 days
    assert sum(w["commits"] for w in src["windows"]) == 10
    assert src["to"] == "2024-01-01"
    assert src["estimated_seconds"] >= 0 and "reading" in src["estimate_from"]
    assert floored.engine().context_health()["counts"]["artifacts"] == before


def test_a_limited_backfill_is_partial_and_says_how_far_it_read(floored: Instance) -> None:
    report = floored.engine().backfill(max_windows=1)
    (src,) = report["sources"]
    assert src["windows_read"] == 1 and src["partial"] is True
    assert src["floor"] == "2024-03-02"
    health = floored.engine().context_health()
    assert health["history"]["floors"]["commits/app"] == "2024-03-02"
    assert health["history"]["partial"] == ["commits/app"]
    # a later ordinary sync keeps the floor the backfill reached, and keeps it partial
    floored.sync()
    floored.sync(full=True)
    health = floored.engine().context_health()
    assert health["history"]["floors"]["commits/app"] == "2024-03-02"
    assert health["history"]["partial"] == ["commits/app"]


def test_a_whole_backfill_reads_every_commit_and_is_not_partial(floored: Instance) -> None:
    report = floored.engine().backfill()
    (src,) = report["sources"]
    assert src["added"] == 10 and src["partial"] is False and src["windows_left"] == 0
    health = floored.engine().context_health()
    assert health["counts"]["by_type"]["commit"] == 20
    assert health["history"]["floors"]["commits/app"] == "2024-01-01"
    assert "partial" not in health["history"]
    floored.sync(full=True)  # commits below the declared floor are kept, never deleted
    assert floored.engine().context_health()["counts"]["by_type"]["commit"] == 20
    assert floored.engine().backfill(dry_run=True)["commits"] == 0


def test_backfill_waits_for_a_sync_after_the_config_changed(floored: Instance) -> None:
    text = (floored.root / "revetly.toml").read_text().replace("since = 2024-04-01",
                                                               "since = 2024-05-01")
    (floored.root / "revetly.toml").write_text(text)
    with pytest.raises(Refusal) as info:
        floored.engine().backfill()
    assert "revetly sync" in info.value.fix


def test_an_unknown_source_is_refused_by_name(floored: Instance) -> None:
    with pytest.raises(Refusal) as info:
        floored.engine().backfill(dry_run=True, source="nope")
    assert info.value.code == "unknown-source"
    assert "commits/app" in info.value.fix
