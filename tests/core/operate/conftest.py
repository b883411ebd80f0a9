"""Shared instances of the operator tests: real git repositories in temp folders."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.core.gitrepo import GitRepo, Instance, md

DAY = 86_400
CODE_START = int(dt.datetime(2024, 1, 1, tzinfo=dt.UTC).timestamp())
"""The code repository's first commit: 2024-01-01; one commit every 10 days after it."""


@pytest.fixture()
def code_repo(tmp_path: Path) -> GitRepo:
    """A code repository with 20 commits, one every 10 days from 2024-01-01."""
    repo = GitRepo(tmp_path / "app")
    for i in range(20):
        repo.write(f"src/m{i}.py", f"x = {i}\n")
        repo.commit(f"feat: module {i}", when=CODE_START + i * 10 * DAY)
    return repo


@pytest.fixture()
def floored(tmp_path: Path, code_repo: GitRepo) -> Instance:
    """An instance reading the code repository with a floor at 2024-04-01 (commits 10-19)."""
    text = (
        '[instance]\nname = "acme"\ndefault_project = "acme"\n\n[projects.acme]\n\n'
        '[[connectors.commits]]\nname = "app"\npath = "../app"\nsince = 2024-04-01\n'
    )
    inst = Instance(tmp_path / "acme", config_text=text)
    inst.git.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "Export invoices",
                               body="See STORY-0002; then reconcile payouts.\n"),
                               "backlog/STORY-0002.md": md("STORY-0002", "Import ledger",
                                                            parent="STORY-0001"),
                               "backlog/STORY-0003.md": md("STORY-0003", "Reconcile payouts")})
    inst.sync()
    return inst
