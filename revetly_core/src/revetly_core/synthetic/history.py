"""The instance on disk: the final work tree, and with git a dated history that leads to it.

One commit per day that had changes: a file is added on its created day (a work item as
draft, a note as proposed), changed on its updated day to its final status, then a few
later commits edit about 1% of the files and one or two delete the doomed ones.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from revetly_core.synthetic.calendar import LAST_DAY, timestamp
from revetly_core.synthetic.fastimport import (
    Change,
    HistoryWriter,
    git_environment,
    init_repository,
    run_git,
)
from revetly_core.synthetic.plan import Plan
from revetly_core.synthetic.render import Version, final_text, render, versions

FOLDERS = ("backlog", "notes", "records")
LISTED = 25
"""A day's commit body names at most this many ids per kind of change."""


def write_tree(plan: Plan, out: Path, extra: dict[str, bytes] | None = None) -> int:
    """Write every live file of the plan (and the extra files) under out; returns how many."""
    for folder in FOLDERS:
        (out / folder).mkdir(parents=True, exist_ok=True)
    for name, data in (extra or {}).items():
        (out / name).write_bytes(data)
    count = 0
    for item in plan.items:
        if not item.doomed:
            (out / item.path).write_text(final_text(item), encoding="utf-8", newline="\n")
            count += 1
    return count


def _listed(ids: list[str]) -> str:
    head = ", ".join(ids[:LISTED])
    return head + (f" and {len(ids) - LISTED} more" if len(ids) > LISTED else "")


def day_message(day_versions: list[Version]) -> str:
    """The commit message of one day: what was added, updated, edited and removed."""
    groups: dict[str, list[str]] = {"add": [], "update": [], "edit": [], "delete": []}
    for v in day_versions:
        groups[v.action].append(v.item.id)
    verbs = {"add": "add", "update": "update", "edit": "edit", "delete": "remove"}
    if len(day_versions) <= 3:
        subject = "; ".join(f"{verbs[a]} {', '.join(ids)}" for a, ids in groups.items() if ids)
        return subject[:1].upper() + subject[1:] + "\n"
    done = {"add": "added", "update": "updated", "edit": "edited", "delete": "removed"}
    tally = ", ".join(f"{len(ids)} {done[a]}" for a, ids in groups.items() if ids)
    body = "\n".join(f"{verbs[a].capitalize()}: {_listed(ids)}"
                     for a, ids in groups.items() if ids)
    return f"Backlog: {tally}\n\n{body}\n"


def _author(plan: Plan, day_versions: list[Version]) -> tuple[str, str]:
    """The person behind most of the day's changes (first by handle on a tie)."""
    tally = Counter(v.item.owner or v.item.delivered_by or plan.people[0].handle
                    for v in day_versions)
    handle = min(tally, key=lambda h: (-tally[h], h))
    person = plan.person(handle)
    return person.name, person.email


def write_history(plan: Plan, out: Path, extra: dict[str, bytes] | None = None) -> int:
    """Make out a git repository whose history ends in the plan's final tree; returns commits.

    extra files (e.g. revetly.toml) land in one more commit, the day after the history ends.
    """
    rnd = random.Random(f"{plan.seed}:history")
    by_day: dict[int, list[Version]] = {}
    for item in plan.items:
        for v in versions(item):
            by_day.setdefault(v.day, []).append(v)
    first = plan.people[0]
    env = git_environment(first.name, first.email)
    init_repository(out, env)
    with HistoryWriter(out, env) as writer:
        for day in sorted(by_day):
            todays = sorted(by_day[day], key=lambda v: v.item.path)
            changes: list[Change] = [
                (v.item.path, None if v.action == "delete" else render(v.item, v.action).encode())
                for v in todays]
            when = timestamp(day, 16 * 3600 + rnd.randint(0, 3 * 3600))
            writer.commit(_author(plan, todays), when, day_message(todays), changes)
        if extra:
            writer.commit((first.name, first.email), timestamp(LAST_DAY + 1, 12 * 3600),
                          "Configure Revetly\n", sorted(extra.items()))
        count = writer.count
        writer.close()
    run_git(out, env, "reset", "-q", "--hard")
    return count
