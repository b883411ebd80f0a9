"""Fixtures for the write tests: a real instance with a story, synced, writes on no thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.gitrepo import Instance
from tests.core.writes.seed import seed_files


@pytest.fixture()
def winst(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Instance:
    """An instance holding an epic, a story with two criteria and a decision, synced once."""
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    for name in ("REVETLY_REVIEWER", "REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY"):
        monkeypatch.delenv(name, raising=False)
    inst = Instance(tmp_path / "acme")
    inst.git.write_and_commit(seed_files(), "seed")
    inst.sync()
    return inst
