"""The history of one path in a git repository, following renames as `git log --follow` does.

Read at query time with pygit2; nothing about paths is ever written to CONTEXT. A walk is kept
in memory keyed by (repository, head, path), so a repeated question costs nothing until the
repository moves.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_ENTRIES = 64


@dataclass(frozen=True)
class PathCommit:
    """One commit that touched the path: its id, time, message and the path as it was there."""

    sha: str
    at: str
    subject: str
    body: str
    path: str
    change: str = "modified"
    """'added' where the commit brought the path in, 'renamed' where it took it from another
    name, 'deleted' where it removed it, else 'modified'."""
    unread: bool = False
    """True when git could not read the blobs a rename check needs here (taken as added)."""


def _entry(tree: Any, path: str) -> Any:
    """The object id of path in a tree, or None when the tree does not hold it."""
    try:
        return tree[path].id
    except (KeyError, ValueError):
        return None


class Unreadable(Exception):
    """Git cannot read an object the walk needs (a snapshot missing blobs)."""


def _renamed_from(repo: Any, parent: Any, commit: Any, path: str) -> str | None:
    """The old path when this commit brought `path` in by renaming another file; raises
    Unreadable when the blobs a rename check needs are missing."""
    import pygit2

    try:
        diff = repo.diff(parent.tree, commit.tree)
        diff.find_similar()
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise Unreadable(str(exc)) from exc
    for delta in diff.deltas:
        if delta.new_file.path == path and delta.old_file.path != path:
            return str(delta.old_file.path)
    return None


def brought_in(history: list[PathCommit]) -> PathCommit | None:
    """The commit that added the path (renames followed back to the oldest name): the oldest
    'added' entry of a newest-first history; None when the history never shows one."""
    return next((c for c in reversed(history) if c.change == "added"), None)


def _iso(commit: Any) -> str:
    offset = dt.timedelta(minutes=commit.author.offset)
    stamp = dt.datetime.fromtimestamp(commit.author.time, tz=dt.timezone(offset))
    return stamp.astimezone(dt.UTC).isoformat()


def follow(repo: Any, path: str) -> list[PathCommit]:
    """Commits touching the path, newest first, following it back across renames.

    A commit touches it where the path's blob differs from its first parent's (added, changed
    or removed); a merge only where it differs from every parent. Where the path appears by a
    rename, older commits are read under the old name.
    """
    import pygit2

    if repo.head_is_unborn:
        return []
    walker = repo.walk(repo.head.target,
                       pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    current = path
    out: list[PathCommit] = []
    for commit in walker:
        here = _entry(commit.tree, current)
        parents = commit.parents
        before = [_entry(p.tree, current) for p in parents]
        if len(parents) > 1:
            touched = all(b != here for b in before)
        elif parents:
            touched = before[0] != here
        else:
            touched = here is not None
        if not touched:
            continue
        message = commit.message or ""
        subject, _, body = message.partition("\n")
        change = "deleted" if here is None else "modified"
        old = None
        unread = False
        if here is not None and (not parents or all(b is None for b in before)):
            change = "added"
            if len(parents) == 1:
                try:
                    old = _renamed_from(repo, parents[0], commit, current)
                except Unreadable:
                    unread = True  # say so and keep going: the path is taken as added here
                change = "renamed" if old is not None else "added"
        out.append(PathCommit(str(commit.id), _iso(commit), subject.strip(), body.strip(),
                              current, change, unread))
        if old is not None:
            current = old
    return out


class PathHistoryCache:
    """In-memory walks keyed by (repository folder, head, path); the oldest entry goes first."""

    def __init__(self, entries: int = CACHE_ENTRIES) -> None:
        self.entries = entries
        self._walks: OrderedDict[tuple[str, str, str], list[PathCommit]] = OrderedDict()

    def history(self, repo_path: Path, path: str) -> list[PathCommit] | None:
        """The path's history in the repository; None when the folder is not a git repository."""
        import pygit2

        try:
            repo = pygit2.Repository(str(repo_path))
        except (pygit2.GitError, KeyError):
            return None
        head = "unborn" if repo.head_is_unborn else str(repo.head.target)
        key = (str(repo_path), head, path)
        if key in self._walks:
            self._walks.move_to_end(key)
            return self._walks[key]
        walk = follow(repo, path)
        self._walks[key] = walk
        while len(self._walks) > self.entries:
            self._walks.popitem(last=False)
        return walk
