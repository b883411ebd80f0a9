"""The synthetic history's calendar: whole days counted from START, and times within them."""

from __future__ import annotations

import datetime as dt
import random

START = dt.date(2023, 9, 4)
"""Day 0 of every synthetic history (a Monday)."""
MAIN_DAYS = 660
"""The backlog is written on days 0 .. MAIN_DAYS - 1 (to 2025-06-25)."""
LATE_DAYS = 20
"""Later edits and deletions fall on the days after that (to 2025-07-15)."""
LAST_DAY = MAIN_DAYS + LATE_DAYS
_EPOCH_OFFSET = (START - dt.date(1970, 1, 1)).days


def iso_day(day: int) -> str:
    """The ISO date of a day number."""
    return (START + dt.timedelta(days=day)).isoformat()


def timestamp(day: int, seconds: int) -> int:
    """Unix time of `seconds` after midnight UTC on a day number."""
    return (_EPOCH_OFFSET + day) * 86_400 + seconds


def on_a_weekday(rnd: random.Random, day: int, last: int = MAIN_DAYS - 1) -> int:
    """Most work lands on weekdays: a Saturday or Sunday usually moves to the next Monday."""
    weekday = day % 7  # day 0 is a Monday
    if weekday >= 5 and rnd.random() < 0.9 and day + 7 - weekday <= last:
        return day + 7 - weekday
    return day
