"""`revetly backfill`: read a commits source's history below its `since` floor, window by window.

Each window is its own read pass, newest first, so a backfill that stops (a window limit, an
interrupt, a failed pass) leaves CONTEXT consistent: the floor is the oldest window read whole,
and the source is listed `partial` while windows are still to read.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from revetly_core.answers.operate import (
    BackfillAnswer,
    BackfillPlan,
    BackfillPlanSource,
    BackfillRead,
    BackfillWindow,
)
from revetly_core.config import Config
from revetly_core.connectors.base import KnownArtifact, Progress, SourceBatch, no_progress
from revetly_core.connectors.commits import CommitsConnector, backfill_state
from revetly_core.inferred.instance import is_full
from revetly_core.instance.layout import InstancePaths
from revetly_core.refusal import Refusal

WINDOW_DAYS = 30
"""The default width of one backfill window."""
SAMPLE_COMMITS = 25
"""How many commits below the floor the estimate times reading."""


@dataclass(frozen=True)
class Window:
    """One stretch of history below the floor: [start, end) as dates, and its commits."""

    start: dt.date
    end: dt.date
    commits: int

    def payload(self) -> BackfillWindow:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(),
                "commits": self.commits}


def _ts(day: dt.date) -> float:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC).timestamp()


def _day(ts: float) -> dt.date:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).date()


def windows_below(times: list[float], floor: dt.date, target: dt.date | None,
                  days: int) -> list[Window]:
    """The windows from ``floor`` back to ``target`` (else the oldest commit), newest first,
    each ``days`` wide; a window holding no commit is listed too, so the floor moves past it."""
    if days < 1:
        raise Refusal("invalid-argument", f"--window-days {days}: a window needs a day at least",
                      "pass --window-days 1 or more")
    oldest = min(times) if times else None
    stop = target if target is not None else (_day(oldest) if oldest is not None else floor)
    out: list[Window] = []
    end = floor
    while end > stop:
        start = max(end - dt.timedelta(days=days), stop)
        lo, hi = _ts(start), _ts(end)
        out.append(Window(start, end, sum(1 for t in times if lo <= t < hi)))
        end = start
    return out


class WindowRead:
    """A commits source read over one window below its floor: upserts only, nothing removed."""

    def __init__(self, base: CommitsConnector, window: Window, target: dt.date,
                 windows_left: int) -> None:
        self.base = base
        self.source_id = base.source_id
        self.project = base.project
        self.window = window
        self.target = target
        self.windows_left = windows_left

    def read(self, known: dict[str, KnownArtifact], cursor: dict[str, Any], *, full: bool,
             now: str, progress: Progress = no_progress) -> SourceBatch:
        import pygit2

        batch = SourceBatch(source=self.source_id, complete=False, history_complete=False)
        repo = pygit2.Repository(str(self.base.path))
        lo, hi = _ts(self.window.start), _ts(self.window.end)
        for commit in repo.walk(repo.head.target, pygit2.enums.SortMode.TIME):
            if lo <= commit.author.time < hi:
                batch.upserts.append(self.base._artifact(repo, commit))
        batch.read_count = len(batch.upserts)
        floor = self.window.start.isoformat()
        state = {"to": floor, "target": self.target.isoformat(),
                 "windows_left": self.windows_left}
        batch.cursor = {**cursor, "backfill": state}
        batch.floor = floor
        batch.partial = self.windows_left > 0
        progress(f"backfill {self.source_id}", 1, 1)
        return batch


def _commit_times(base: CommitsConnector, below: dt.date) -> list[float]:
    import pygit2

    repo = pygit2.Repository(str(base.path))
    if repo.head_is_unborn:
        return []
    limit = _ts(below)
    return [c.author.time for c in repo.walk(repo.head.target, pygit2.enums.SortMode.TIME)
            if c.author.time < limit]


def sampled_seconds_per_commit(base: CommitsConnector, below: dt.date) -> tuple[float, int]:
    """(seconds per commit, commits timed): reading a sample of the commits below the floor."""
    import pygit2

    repo = pygit2.Repository(str(base.path))
    limit = _ts(below)
    timed = 0
    started = time.perf_counter()
    for commit in repo.walk(repo.head.target, pygit2.enums.SortMode.TIME):
        if commit.author.time < limit:
            base._artifact(repo, commit)
            timed += 1
            if timed >= SAMPLE_COMMITS:
                break
    return ((time.perf_counter() - started) / timed if timed else 0.0), timed


def _sources(root: Path, config: Config, cursors: dict[str, dict[str, Any]],
             source: str | None) -> list[tuple[CommitsConnector, dt.date]]:
    """(connector, current floor) for each commits source with a floor, or the one named."""
    out: list[tuple[CommitsConnector, dt.date]] = []
    names = []
    for settings in config.connectors.commits:
        base = CommitsConnector(root, settings, config.default_project)
        names.append(base.source_id)
        if source is not None and source not in (base.source_id, settings.name):
            continue
        if settings.since is None:
            if source is not None:
                raise Refusal("refused", f"{base.source_id} declares no `since` floor: its whole "
                              "history is read already", "name a commits source with a floor")
            continue
        state = backfill_state(cursors.get(base.source_id, {}), settings.since.isoformat())
        floor = dt.date.fromisoformat(state["to"]) if state else settings.since
        out.append((base, floor))
    if source is not None and not out:
        raise Refusal("unknown-source", f"no commits source is named {source!r}",
                      f"name one of: {', '.join(names) or '(none declared)'}",
                      {"argument": "source"})
    return out


def _cursors(root: Path) -> dict[str, dict[str, Any]]:
    from revetly_core.instance.layout import InstancePaths
    from revetly_core.store.db import Store

    store = Store(InstancePaths(root).db, readonly=True)
    try:
        return {r["source"]: store.source_state(r["source"]) for r in store.sources()}
    finally:
        store.close()


def plan_backfill(root: Path, config: Config, *, source: str | None = None,
                  to: dt.date | None = None, window_days: int = WINDOW_DAYS) -> BackfillPlan:
    """The price of reading below each floor: windows, commits and an estimated time."""
    cursors = _cursors(root)
    plans: list[BackfillPlanSource] = []
    for base, floor in _sources(root, config, cursors, source):
        times = _commit_times(base, floor)
        if to is not None:
            times = [t for t in times if t >= _ts(to)]
        wins = windows_below(times, floor, to, window_days)
        per_commit, timed = sampled_seconds_per_commit(base, floor) if times else (0.0, 0)
        plans.append({
            "source": base.source_id, "floor": floor.isoformat(),
            "to": wins[-1].start.isoformat() if wins else floor.isoformat(),
            "windows": [w.payload() for w in wins], "commits": len(times),
            "estimated_seconds": round(per_commit * len(times), 2),
            "estimate_from": f"reading {timed} commits below the floor" if timed else None,
        })
    plan: BackfillPlan = {
        "dry_run": True, "window_days": window_days, "sources": plans,
        "commits": sum(p["commits"] for p in plans),
        "estimated_seconds": round(sum(p["estimated_seconds"] for p in plans), 2)}
    if is_full(config):  # every backfilled commit is an episode for the inferred half
        from revetly_core.inferred.price import price_inferred

        plan["inferred"] = price_inferred(InstancePaths(root).index, plan["commits"])
    return plan


def require_current_store(root: Path, config: Config) -> None:
    """A backfill pass reads one source: the rest must already be read under this config."""
    from revetly_core.ingest.readpass import config_fingerprint
    from revetly_core.instance.layout import InstancePaths
    from revetly_core.store.db import Store

    store = Store(InstancePaths(root).db, readonly=True)
    try:
        current = store.revision > 0 and store.get_meta("config_fingerprint") == \
            config_fingerprint(config)
    finally:
        store.close()
    if not current:
        raise Refusal("refused", "CONTEXT was not read under this revetly.toml",
                      "run `revetly sync` first, then backfill")


def run_backfill(root: Path, config: Config, *, source: str | None = None,
                 to: dt.date | None = None, window_days: int = WINDOW_DAYS,
                 max_windows: int | None = None, progress: Progress = no_progress,
                 ) -> BackfillAnswer:
    """Read the windows below each floor, newest first, one pass each, at most max_windows
    in all; what is left is reported, and the source stays partial until it is read."""
    from revetly_core.ingest.readpass import run_pass

    require_current_store(root, config)
    plan = plan_backfill(root, config, source=source, to=to, window_days=window_days)
    budget = max_windows
    results: list[BackfillRead] = []
    for entry in plan["sources"]:
        base = next(b for b, _ in _sources(root, config, _cursors(root), entry["source"]))
        wins = [Window(dt.date.fromisoformat(w["start"]), dt.date.fromisoformat(w["end"]),
                       w["commits"]) for w in entry["windows"]]
        target = wins[-1].start if wins else dt.date.fromisoformat(entry["floor"])
        read = 0
        added = 0
        for i, window in enumerate(wins):
            if budget is not None and budget <= 0:
                break
            reader = WindowRead(base, window, target, windows_left=len(wins) - i - 1)
            result = run_pass(root, config, connectors=[reader], progress=progress)
            added += int(result.changed.get("added", 0))
            read += 1
            if budget is not None:
                budget -= 1
        left = len(wins) - read
        floor = wins[read - 1].start.isoformat() if read else entry["floor"]
        results.append({"source": entry["source"], "windows_read": read, "windows_left": left,
                        "added": added, "floor": floor, "partial": left > 0})
    return {"dry_run": False, "window_days": window_days, "sources": results,
            "plan": plan}
