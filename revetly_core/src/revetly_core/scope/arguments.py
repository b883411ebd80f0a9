"""The arguments of the scope reads, checked at the door: every bad one is a refusal by name."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from revetly_core.answers.scope import WindowBlock
from revetly_core.isotime import parse_iso_utc
from revetly_core.refusal import Refusal

QUESTIONS = ("binding", "drift", "deltas")
CLOCKS = ("source", "ingest")
DEFAULT_LIMIT = 30
MAX_LIMIT = 200
MAX_TOPIC_CHARS = 2_000
MAX_PATH_CHARS = 1_000


def invalid(argument: str, detail: str, fix: str, code: str = "invalid-argument") -> Refusal:
    """A refusal naming the argument it is about."""
    return Refusal(code, detail, fix, {"argument": argument})


def check_question(question: object) -> str:
    """question is one of binding, drift or deltas."""
    if question not in QUESTIONS:
        raise invalid("question", f"question={question!r} is not a question get_scope answers",
                      f"pass question as one of: {', '.join(QUESTIONS)}", "unknown-question")
    return str(question)


def check_one_scope(artifact_id: object, topic: object, path: object) -> None:
    """At most one of artifact_id, topic and path names the scope."""
    named = [n for n, v in (("artifact_id", artifact_id), ("topic", topic), ("path", path))
             if v not in (None, "")]
    if len(named) > 1:
        raise invalid(named[1], f"the scope is named by {' and '.join(named)}; a scope is one "
                      "of them", "pass only one of artifact_id, topic or path")


def check_topic(topic: object) -> str:
    """A topic is text of at most MAX_TOPIC_CHARS characters with something in it."""
    if not isinstance(topic, str) or not topic.strip():
        raise invalid("topic", "the topic is empty", "pass a few words naming what to gather")
    text = topic.strip()
    if len(text) > MAX_TOPIC_CHARS:
        raise invalid("topic", f"the topic is {len(text)} characters; at most {MAX_TOPIC_CHARS}"
                      " are read", "name the topic in the few words that matter")
    return text


def check_path(path: object) -> str:
    """A path is text of at most MAX_PATH_CHARS characters, without NUL bytes."""
    if not isinstance(path, str) or not path.strip() or "\x00" in path:
        raise invalid("path", "the path is empty or not text",
                      "pass a file path as written in a code repository, e.g. src/app/billing.py")
    if len(path) > MAX_PATH_CHARS:
        raise invalid("path", f"the path is {len(path)} characters long",
                      f"pass a repository path of at most {MAX_PATH_CHARS} characters")
    return path.strip()


def check_limit(limit: object, default: int = DEFAULT_LIMIT, most: int = MAX_LIMIT) -> int:
    """limit is absent (the default) or a whole number from 1 to `most`."""
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= most:
        raise invalid("limit", f"limit={limit!r} is not a whole number from 1 to {most}",
                      f"pass a limit between 1 and {most}")
    return limit


def check_depth(depth: object) -> int | None:
    """depth is absent (the whole branch) or a whole number of levels from 0."""
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise invalid("depth", f"depth={depth!r} is not a whole number of levels from 0",
                      "omit depth for the whole branch, or pass 0 for the scope alone")
    return depth


def check_clock(clock: object) -> str:
    """clock is absent (source) or one of 'source' and 'ingest'."""
    if clock in (None, ""):
        return "source"
    if clock not in CLOCKS:
        raise invalid("clock", f"clock={clock!r} is not a clock deltas reads",
                      "pass clock='source' (when the change happened, as the source says) or "
                      "clock='ingest' (when this instance learned of it)", "invalid-clock")
    return str(clock)


def parse_when(argument: str, value: object) -> dt.datetime | None:
    """An ISO date (midnight UTC) or date-time (UTC when it names no zone); None when absent."""
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise invalid(argument, f"{argument} must be an ISO date such as 2025-03-01",
                      f"pass {argument} as YYYY-MM-DD or an ISO date-time")
    when = parse_iso_utc(value)
    if when is None:
        raise invalid(argument, f"{argument}={value!r} is not an ISO date or date-time",
                      f"pass {argument} as YYYY-MM-DD or an ISO date-time")
    return when


@dataclass(frozen=True)
class Window:
    """A half-open window [since, until) on one clock; an absent end is unbounded."""

    since: dt.datetime | None
    until: dt.datetime | None

    def holds(self, when: str | None) -> bool:
        """True when the ISO time falls inside the window (an undated time never does)."""
        if when is None:
            return False
        stamp = parse_iso_utc(when)
        if stamp is None:
            return False
        if self.since is not None and stamp < self.since:
            return False
        return not (self.until is not None and stamp >= self.until)

    def payload(self, clock: str | None = None) -> WindowBlock:
        out: WindowBlock = {
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
        }
        if clock is not None:
            out["clock"] = clock
        return out

    @property
    def bounded(self) -> bool:
        return self.since is not None or self.until is not None


def check_window(since: object, until: object) -> Window:
    """since and until as a window; an end before its start is refused."""
    start = parse_when("since", since)
    end = parse_when("until", until)
    if start is not None and end is not None and end < start:
        raise invalid("until", f"the window ends ({until}) before it starts ({since})",
                      "pass an until later than since, or swap them", "invalid-window")
    return Window(start, end)
