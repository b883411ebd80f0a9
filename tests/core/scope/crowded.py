"""A code repository whose one file's history names more stories than a path binding lists
by default (shared by the core, CLI and MCP tests of the listed count)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from revetly_core.engine import Engine

from tests.core.gitrepo import BASE_TIME, GitRepo, md

DAY = 86_400
SHARED_FILE = "src/shared.py"
STORIES = 8
"""Stories a shared file's history names: more than the default five."""


@dataclass
class Crowded:
    root: Path
    order: list[str]
    """The stories heaviest first: the oldest commit brings the file in, the later ones each
    name one more story, newest first on the tie."""

    def binding(self, **kw: Any) -> dict[str, Any]:
        return Engine.open(self.root).get_scope("binding", path=SHARED_FILE, **kw)


def build_crowded(base: Path) -> Crowded:
    """Eight commits to one file, each naming one story, and an instance declaring the repo."""
    code = GitRepo(base / "app")
    ids = [f"STORY-{n:04d}" for n in range(1, STORIES + 1)]
    for day, sid in enumerate(ids, start=1):
        code.write(SHARED_FILE, f"VALUE = {day}\n")
        code.commit(f"{sid}: change the shared value", when=BASE_TIME + day * DAY)
    root = base / "acme"
    Engine.init(root)
    with (root / "revetly.toml").open("a", encoding="utf-8") as fh:
        fh.write(f'\n[[connectors.commits]]\nname = "app"\npath = "{code.root.as_posix()}"\n')
    GitRepo(root, create=False).write_and_commit(
        {f"backlog/{sid}.md": md(sid, f"Shared value step {sid[-1]}", "story", "A step.\n",
                                 status="done") for sid in ids},
        "seed the backlog", when=BASE_TIME + 20 * DAY)
    Engine.open(root).sync()
    return Crowded(root, [ids[0], *reversed(ids[1:])])
