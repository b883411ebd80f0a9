"""Shared fixtures of the core tests: real git repositories and instances in temp folders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from revetly_core.store.db import Store

from tests.core.gitrepo import GitRepo, Instance


@pytest.fixture()
def git_repo(tmp_path: Path) -> GitRepo:
    """An empty git repository (no commits yet)."""
    return GitRepo(tmp_path / "repo")


@pytest.fixture()
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Instance:
    """An instance named 'acme' with the default revetly.toml committed, no artifacts yet."""
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    return Instance(tmp_path / "acme")


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    """An empty store in a temp folder, closed after the test (a module's own fixture wins)."""
    s = Store(tmp_path / "state" / "context.db")
    yield s
    s.close()
