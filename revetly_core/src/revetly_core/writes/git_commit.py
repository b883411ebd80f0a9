"""Commits of written files (pygit2), one writer at a time so history stays linear."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from revetly_core.refusal import Refusal
from revetly_core.writes.files import FileBatch
from revetly_core.writes.principal import Principal

WRITE_LOCK = "write.lock"
LOCK_TIMEOUT_S = 60.0


@contextmanager
def write_lock(state_dir: Path) -> Iterator[FileBatch]:
    """Hold the instance's write lock: read, write and commit happen under it, never interleaved.

    Files written through the yielded batch are put back as they were if the block fails, so
    a write that cannot commit leaves nothing behind.
    """
    state_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(state_dir / WRITE_LOCK))
    try:
        lock.acquire(timeout=LOCK_TIMEOUT_S)
    except Timeout:
        raise Refusal("busy", "another write has held this instance for over a minute",
                      "try the write again; if it persists, look for a stuck revetly process",
                      ) from None
    batch = FileBatch()
    try:
        yield batch
    except BaseException:
        batch.rollback()
        raise
    finally:
        lock.release()


def _signature(principal: Principal) -> Any:
    import pygit2

    email = principal.email or f"{principal.name.replace(' ', '.').lower()}@revetly.invalid"
    return pygit2.Signature(principal.name or "unknown", email, int(time.time()), 0)


def _insert(repo: Any, tree: Any, parts: list[str], blob: Any | None) -> Any:
    """A new tree id: tree with the file at parts set to blob (or removed when blob is None)."""
    import pygit2

    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    name = parts[0]
    if len(parts) == 1:
        if blob is None:
            if tree is not None and name in tree:
                builder.remove(name)
        else:
            builder.insert(name, blob, pygit2.enums.FileMode.BLOB)
        return builder.write()
    sub = None
    if tree is not None and name in tree:
        entry = tree[name]
        if entry.type == pygit2.enums.ObjectType.TREE:
            sub = repo[entry.id]
    new_sub = _insert(repo, sub, parts[1:], blob)
    builder.insert(name, new_sub, pygit2.enums.FileMode.TREE)
    return builder.write()


def commit_files(root: Path, rel_paths: list[str], message: str, principal: Principal) -> str:
    """Commit exactly these work-tree files on HEAD (other staged work is left alone).

    Call under write_lock. The tree is HEAD's with these paths replaced, so two writers that
    take turns each add one commit on top of the other's: a linear history.
    """
    import pygit2

    repo = pygit2.Repository(str(root))
    head = None if repo.head_is_unborn else repo[repo.head.target]
    tree = head.tree if head is not None else None
    tree_id = tree.id if tree is not None else None
    for rel in sorted(set(rel_paths)):
        disk = root / rel
        blob = repo.create_blob(disk.read_bytes()) if disk.is_file() else None
        tree_id = _insert(repo, repo[tree_id] if tree_id is not None else None,
                          rel.split("/"), blob)
    sig = _signature(principal)
    parents = [head.id] if head is not None else []
    if tree_id is None:
        raise Refusal("nothing-to-commit", "no file was given to commit", "name the files")
    oid = repo.create_commit("HEAD", sig, sig, message, tree_id, parents)
    _refresh_index(repo, root, rel_paths)
    return str(oid)


def _refresh_index(repo: Any, root: Path, rel_paths: list[str]) -> None:
    """Stage the committed paths too, so `git status` reads clean for them."""
    index = repo.index
    index.read()
    for rel in rel_paths:
        if (root / rel).is_file():
            index.add(rel)
        else:
            with suppress(OSError, KeyError):
                index.remove(rel)
    index.write()
