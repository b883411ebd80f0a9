"""A small real-git helper for the core tests: init, write, commit at a given time, delete.

Every commit is made with pygit2 and an explicit author/committer signature and timestamp,
so commit ids, history dates and deletion dates are fully determined by the test.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

import pygit2

DEFAULT_AUTHOR = ("Dana Reyes", "dana@example.com")
BASE_TIME = 1_735_000_000  # 2024-12-24T00:26:40Z: a fixed, arbitrary epoch for test history


def iso(ts: int) -> str:
    """The ISO-8601 UTC form the engine stores for a commit time."""
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat()


class GitRepo:
    """A working-tree git repository in a temp folder, driven through pygit2."""

    def __init__(self, root: Path, *, create: bool = True) -> None:
        self.root = Path(root)
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
            self.repo = pygit2.init_repository(str(self.root), initial_head="main")
        else:
            self.repo = pygit2.Repository(str(self.root))
        self._clock = BASE_TIME

    # -- the work tree ------------------------------------------------------------------

    def write(self, rel: str, content: str | bytes) -> Path:
        """Write a file in the work tree (not staged, not committed)."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_bytes(content.encode("utf-8"))
        else:
            path.write_bytes(content)
        return path

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def unlink(self, rel: str) -> None:
        """Delete a file from the work tree only (the index and HEAD still hold it)."""
        (self.root / rel).unlink()

    def remove(self, rel: str) -> None:
        """`git rm`: delete the file from the work tree and from the index."""
        path = self.root / rel
        if path.exists():
            path.unlink()
        self.repo.index.read()
        self.repo.index.remove(rel)
        self.repo.index.write()

    # -- commits ------------------------------------------------------------------------

    def next_time(self, step: int = 3600) -> int:
        self._clock += step
        return self._clock

    def commit(
        self,
        message: str = "change",
        *,
        when: int | None = None,
        author: tuple[str, str] = DEFAULT_AUTHOR,
        paths: Iterable[str] | None = None,
        allow_empty: bool = True,
    ) -> str:
        """Stage everything (or just `paths`), commit at `when`, return the commit id."""
        repo = self.repo
        index = repo.index
        index.read()
        if paths is None:
            index.add_all()
            # files deleted from the work tree leave the index too (git add -A)
            for entry in list(index):
                if not (self.root / entry.path).exists():
                    index.remove(entry.path)
        else:
            for p in paths:
                if (self.root / p).exists():
                    index.add(p)
                else:
                    index.remove(p)
        index.write()
        tree = index.write_tree()
        parents = [] if repo.head_is_unborn else [repo.head.target]
        if not allow_empty and parents and repo[parents[0]].tree_id == tree:
            raise AssertionError("nothing to commit")
        ts = self.next_time() if when is None else when
        self._clock = max(self._clock, ts)
        sig = pygit2.Signature(author[0], author[1], ts, 0)
        oid = repo.create_commit("HEAD", sig, sig, message, tree, parents)
        return str(oid)

    def write_and_commit(self, files: dict[str, str | bytes], message: str = "change",
                         *, when: int | None = None,
                         author: tuple[str, str] = DEFAULT_AUTHOR) -> str:
        for rel, content in files.items():
            self.write(rel, content)
        return self.commit(message, when=when, author=author)

    def remove_and_commit(self, rels: Iterable[str], message: str = "remove",
                          *, when: int | None = None) -> str:
        for rel in rels:
            self.remove(rel)
        return self.commit(message, when=when)

    @property
    def head(self) -> str | None:
        return None if self.repo.head_is_unborn else str(self.repo.head.target)

    def commit_time(self, sha: str) -> int:
        return int(self.repo[sha].author.time)

    def copy_to(self, dest: Path, *, ignore_state: bool = True) -> GitRepo:
        """A copy of the whole folder (work tree and .git), without .revetly/ by default."""
        ignore = shutil.ignore_patterns(".revetly") if ignore_state else None
        shutil.copytree(self.root, dest, ignore=ignore, symlinks=True)
        return GitRepo(dest, create=False)


def md(
    artifact_id: str,
    title: str,
    type_: str = "story",
    body: str = "",
    **fields: object,
) -> str:
    """A markdown instance file: YAML frontmatter (id, title, type, extra fields) and a body."""
    import yaml

    front: dict[str, object] = {"id": artifact_id, "title": title, "type": type_}
    front.update({k: v for k, v in fields.items() if v is not None})
    text = yaml.safe_dump(front, sort_keys=False, allow_unicode=True)
    return f"---\n{text}---\n\n{body}"


def gitignore_state(repo: GitRepo) -> None:
    """The instance's .gitignore, as `revetly init` writes it."""
    repo.write(".gitignore", ".revetly/\n")


def env_without_instance() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REVETLY_INSTANCE", None)
    return env


class Instance:
    """A Revetly instance on a real git repository, with the engine calls the tests need."""

    def __init__(self, root: Path, *, name: str = "acme",
                 commits: list[tuple[str, str]] | None = None,
                 config_text: str | None = None, commit_config: bool = True) -> None:
        from revetly_core.instance.scaffold import default_config_text

        self.git = GitRepo(root)
        self.root = self.git.root
        text = config_text if config_text is not None else default_config_text(name, commits or [])
        self.git.write("revetly.toml", text)
        gitignore_state(self.git)
        if commit_config:
            self.git.commit("configure the instance")

    # engine entry points, each opening the instance afresh as a shell would
    def engine(self):  # type: ignore[no-untyped-def]
        from revetly_core import Engine

        return Engine.open(self.root)

    def sync(self, *, full: bool = False) -> dict:  # type: ignore[type-arg]
        return self.engine().sync(full=full)

    def health(self) -> dict:  # type: ignore[type-arg]
        return self.engine().context_health()

    def check(self) -> dict:  # type: ignore[type-arg]
        return self.engine().check()

    def store(self):  # type: ignore[no-untyped-def]
        from revetly_core.store.db import Store

        return Store(self.root / ".revetly" / "context.db", readonly=True)

    def snapshot(self) -> dict:  # type: ignore[type-arg]
        s = self.store()
        try:
            return s.snapshot()
        finally:
            s.close()

    def get(self, artifact_id: str):  # type: ignore[no-untyped-def]
        s = self.store()
        try:
            return s.get(artifact_id)
        finally:
            s.close()

    def links(self, where: str = "1", params: tuple = ()) -> list[dict]:  # type: ignore[type-arg]
        s = self.store()
        try:
            return [dict(r) for r in s.live_links(where, params)]
        finally:
            s.close()

    def problems(self) -> list[dict]:  # type: ignore[type-arg]
        s = self.store()
        try:
            return [dict(r) for r in s.problems()]
        finally:
            s.close()
