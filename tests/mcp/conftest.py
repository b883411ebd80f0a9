"""Fixtures of the MCP tests: a synced instance on disk."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from revetly_core import Engine


@pytest.fixture()
def synced_instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty instance with one read pass done."""
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    root = tmp_path / "inst"
    Engine.init(root)
    Engine.open(root).sync()
    return root


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example instance 'acme', built and synced once per test session."""
    import subprocess

    out = tmp_path_factory.mktemp("example")
    repo = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, str(repo / "examples" / "build_acme.py"), str(out)],
                   check=True, capture_output=True)
    Engine.open(out / "acme").sync()
    return out / "acme"


TWO_PROJECTS = """
[instance]
name = "duo"
default_project = "alpha"

[projects.alpha]
imports = ["beta"]
paths = ["backlog/alpha"]

[projects.beta]
imports = []
paths = ["backlog/beta"]

[connectors.repository]
paths = ["backlog", "notes", "records"]
"""


@pytest.fixture()
def duo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An instance declaring two projects, alpha (importing beta) and beta, one story each."""
    import pygit2

    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    root = tmp_path / "duo"
    Engine.init(root)
    (root / "revetly.toml").write_text(TWO_PROJECTS)
    for project, number in (("alpha", 1), ("beta", 2)):
        folder = root / "backlog" / project
        folder.mkdir(parents=True)
        (folder / f"STORY-00{number}.md").write_text(
            f"---\nid: STORY-00{number}\ntitle: Export invoices for {project}\ntype: story\n"
            f"status: ready\n---\n\nExport the {project} invoices as CSV.\n\n"
            "## Acceptance criteria\n\n- a CSV file downloads\n")
    repo = pygit2.Repository(str(root))
    repo.index.add_all()
    repo.index.write()
    sig = pygit2.Signature("Test", "test@example.com", 1_700_000_000, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]  # init made the first commit
    repo.create_commit("HEAD", sig, sig, "two projects", repo.index.write_tree(), parents)
    Engine.open(root).sync()
    return root


STORY = """---
id: STORY-0001
title: Export invoices as CSV
type: story
status: ready
---

Finance wants a CSV of every invoice.

## Acceptance criteria

- A CSV holds one row per invoice
"""


@pytest.fixture()
def writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A synced instance holding one story, with a person named as the local actor."""
    import pygit2

    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    for name in ("REVETLY_REVIEWER", "REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "acme"
    Engine.init(root)
    (root / "backlog" / "STORY-0001.md").write_text(STORY)
    repo = pygit2.Repository(str(root))
    repo.index.add_all()
    repo.index.write()
    sig = pygit2.Signature("Dana Reyes", "dana@example.com", 1_700_000_000, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]  # init made the first commit
    repo.create_commit("HEAD", sig, sig, "seed", repo.index.write_tree(), parents)
    Engine.open(root).sync()
    return root
