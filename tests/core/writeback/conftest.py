"""Fixtures for the write adapters: a real instance synced from a fake GitHub on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from revetly_core import Engine
from tests.core.connectors.github_instance import TOKEN, TOKEN_ENV, github_instance
from tests.support.fake_github import FakeGitHub, serving

STORY_BODY = ("Keep offline edits.\n\n## Acceptance criteria\n\n- [ ] Edits made offline sync\n"
              "- [ ] Conflicts are shown\n")


@pytest.fixture()
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, FakeGitHub]]:
    """An instance reading acme/app (GH-1 a story with two criteria, GH-2 a bug), synced."""
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    for name in ("REVETLY_REVIEWER", "REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY",
                 "REVETLY_CRASH_AT"):
        monkeypatch.delenv(name, raising=False)
    fake = FakeGitHub()
    with serving(fake):
        fake.add_issue(1, "Offline sync", labels=("story",), body=STORY_BODY)
        fake.add_issue(2, "Crash on empty queue", labels=("bug",))
        fake.add_comment(1, "A person's comment, never edited by Revetly.", author="ana")
        engine = github_instance(tmp_path, fake.url)
        engine.capture_mode = "none"
        engine.sync()
        yield engine, fake


DONE_VERDICTS = ["met", "partial"]


def delivery_files(engine: Engine) -> list[str]:
    """The delivery records committed in the instance."""
    return sorted(p.name for p in (engine.root / "records").glob("DEL-*.md"))


def reopen_engine(engine: Engine, extra_toml: str) -> Engine:
    """The same instance with more revetly.toml text, opened again."""
    toml = engine.root / "revetly.toml"
    toml.write_text(toml.read_text() + extra_toml)
    again = Engine.open(engine.root)
    again.capture_mode = "none"
    return again
