"""Dates of git objects, as the ISO strings the store keeps (UTC, seconds)."""

from __future__ import annotations

import datetime as dt
from typing import Any


def commit_time(commit: Any) -> str:
    """The author time of a pygit2 commit, as an ISO-8601 UTC string."""
    sig = commit.author
    return dt.datetime.fromtimestamp(sig.time, tz=dt.UTC).isoformat()


def commit_subject_body(message: str) -> tuple[str, str]:
    """A commit message split into its subject line and the body after it."""
    text = message.strip("\n")
    subject, _, rest = text.partition("\n")
    return subject.strip(), rest.strip("\n")
