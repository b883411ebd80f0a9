"""The one way the CLI prints a time: UTC, to the minute, marked as UTC."""

from __future__ import annotations

import datetime as dt


def when(value: object) -> str:
    """An ISO-8601 time as 'YYYY-MM-DD HH:MM UTC'; a bare date stays a date; None is 'never'."""
    if value is None or value == "":
        return "never"
    text = str(value)
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if len(text) <= 10:
        return parsed.date().isoformat()
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def day(value: object) -> str:
    """The UTC date of an ISO-8601 time (for narrow columns); '' when there is none."""
    if value is None or value == "":
        return ""
    return when(value)[:10]
