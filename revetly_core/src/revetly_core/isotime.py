"""ISO-8601 time, one way: the UTC clock, its text, and reading a date or date-time back."""

from __future__ import annotations

import datetime as dt


def utc_now() -> dt.datetime:
    """Now, as an aware datetime in UTC."""
    return dt.datetime.now(dt.UTC)


def iso_utc(when: dt.datetime | None = None, *, to_second: bool = False) -> str:
    """when (default: now) as ISO-8601 UTC text, to the microsecond or, with to_second, the second."""
    stamp = (when or utc_now()).astimezone(dt.UTC)
    return (stamp.replace(microsecond=0) if to_second else stamp).isoformat()


def parse_iso_utc(text: str) -> dt.datetime | None:
    """An ISO date (midnight UTC) or date-time (UTC when it names no zone) as an aware
    datetime; None when the text is neither. A trailing Z reads as +00:00."""
    value = text.strip()
    try:
        if len(value) == 10:
            return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), tzinfo=dt.UTC)
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)
