"""Commits of written files (pygit2), one writer at a time so history stays linear.

A commit is built from the bytes a write's intent holds, never from what the work tree
happens to hold, so a commit made by recovery is the one the killed write would have made.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from revetly_core.processes import pid_alive
from revetly_core.refusal import Refusal
from revetly_core.writes.crash import armed, crash_point
from revetly_core.writes.principal import Principal

WRITE_LOCK = "write.lock"
WRITE_OWNER = "write.owner"
"""Who holds the write lock: pid, host, since and the write's kind (read when refusing)."""
LOCK_TIMEOUT_S = 60.0
INTENT_TRAILER = "Revetly-Intent"
"""The commit-message trailer naming the intent a commit applies (how recovery finds it)."""
GIT_LOCKS = ("HEAD.lock", "index.lock", "packed-refs.lock")
"""Lock files git (and libgit2) leave in .git when killed mid-update, beside the branch's own."""
HISTORY_SCAN = 64
"""How far back from HEAD recovery looks for an intent's commit."""



def lock_holder(state_dir: Path) -> dict[str, Any] | None:
    """What the write lock's holder wrote about itself, if it is still alive."""
    try:
        data = json.loads((state_dir / WRITE_OWNER).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
        return None
    same_host = data.get("host") == socket.gethostname()
    if same_host and not pid_alive(data["pid"]):
        return None
    return data


def busy_refusal(state_dir: Path, waited: float) -> Refusal:
    """The answer when a live process holds the write lock: it is named, nothing is written."""
    holder = lock_holder(state_dir)
    if holder is None:
        who = "another process"
    else:
        who = (f"process {holder['pid']} on {holder.get('host', '?')} (a {holder.get('kind', '?')} "
               f"write, since {holder.get('since', '?')})")
    return Refusal("busy", f"{who} has held this instance's write lock for over {waited:.0f} s",
                   "try the write again; if it persists, see whether that process is stuck",
                   {"holder": holder, "wrote": False})


@contextmanager
def held_write_lock(state_dir: Path, kind: str) -> Iterator[None]:
    """Hold the instance's write lock (released by the kernel if this process dies)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(state_dir / WRITE_LOCK))
    try:
        lock.acquire(timeout=LOCK_TIMEOUT_S)
    except Timeout:
        raise busy_refusal(state_dir, LOCK_TIMEOUT_S) from None
    try:
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "kind": kind,
                 "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        with suppress(OSError):
            (state_dir / WRITE_OWNER).write_text(json.dumps(owner))
        yield
    finally:
        with suppress(OSError):
            (state_dir / WRITE_OWNER).unlink()
        lock.release()


def signature(who: dict[str, Any], at: int) -> Any:
    """A git signature from a {name, email} record (an address is made up when none is known)."""
    import pygit2

    name = str(who.get("name") or "unknown")
    email = who.get("email") or f"{name.replace(' ', '.').lower()}@revetly.invalid"
    return pygit2.Signature(name, str(email), at, 0)


def identity(principal: Principal) -> dict[str, Any]:
    """The {name, email} a commit signs with for a principal."""
    return {"name": principal.name or "unknown", "email": principal.email}


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


def branch_ref(repo: Any) -> str:
    """The ref a commit on HEAD moves: the branch HEAD names, or HEAD itself when detached."""
    if repo.head_is_detached:
        return "HEAD"
    target = repo.lookup_reference("HEAD").target
    return str(target)


def git_lock_files(root: Path) -> list[Path]:
    """The git lock files present now: HEAD's, the index's, packed-refs' and the branch's."""
    import pygit2

    repo = pygit2.Repository(str(root))
    gitdir = Path(repo.path)
    names = [*GIT_LOCKS, f"{branch_ref(repo)}.lock"]
    return [gitdir / n for n in dict.fromkeys(names) if (gitdir / n).exists()]


def blob_at(repo: Any, tree: Any, rel: str) -> bytes | None:
    """The bytes a tree holds at a path, or None."""
    try:
        entry = tree[rel]
    except (KeyError, TypeError):
        return None
    obj = repo[entry.id]
    return bytes(obj.data) if hasattr(obj, "data") else None


def head_bytes(root: Path, rel: str) -> bytes | None:
    """The bytes HEAD's tree holds at a path (None when absent or unborn)."""
    import pygit2

    repo = pygit2.Repository(str(root))
    if repo.head_is_unborn:
        return None
    return blob_at(repo, repo[repo.head.target].tree, rel)


def commit_of_intent(root: Path, intent_id: str) -> str | None:
    """The commit near HEAD whose message carries this intent's trailer, if one landed."""
    import pygit2

    repo = pygit2.Repository(str(root))
    if repo.head_is_unborn:
        return None
    needle = f"{INTENT_TRAILER}: {intent_id}"
    for n, commit in enumerate(repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL)):
        if n >= HISTORY_SCAN:
            break
        if needle in commit.message.splitlines():
            return str(commit.id)
    return None


def _hold_ref_lock_then_die(repo: Any, refname: str, oid: Any) -> None:
    """The ref-locked crash point: leave the branch's .lock as git holds it mid-update, then die.

    libgit2 takes ``<ref>.lock`` (create-exclusive), writes the new id into it and renames it
    over the ref; a kill between the two leaves exactly this file.
    """
    if not armed("ref-locked"):
        return
    lock = Path(repo.path) / f"{refname}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(lock), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, f"{oid}\n".encode())
    os.close(fd)
    crash_point("ref-locked")


def commit_bytes(root: Path, files: dict[str, bytes | None], message: str,
                 author: dict[str, Any], committer: dict[str, Any], at: int) -> str:
    """Commit exactly these paths, with these bytes, on top of HEAD (other staged work stays).

    Call under the write lock. The tree is HEAD's with these paths replaced, so two writers
    that take turns each add one commit on top of the other's: a linear history.
    """
    import pygit2

    if not files:
        raise Refusal("nothing-to-commit", "no file was given to commit", "name the files")
    repo = pygit2.Repository(str(root))
    head = None if repo.head_is_unborn else repo[repo.head.target]
    tree = head.tree if head is not None else None
    tree_id = tree.id if tree is not None else None
    for rel in sorted(files):
        data = files[rel]
        blob = repo.create_blob(data) if data is not None else None
        tree_id = _insert(repo, repo[tree_id] if tree_id is not None else None,
                          rel.split("/"), blob)
    parents = [head.id] if head is not None else []
    if tree_id is None:  # pragma: no cover - files always make a tree
        raise Refusal("nothing-to-commit", "no file was given to commit", "name the files")
    oid = repo.create_commit(None, signature(author, at), signature(committer, at), message,
                             tree_id, parents)
    crash_point("commit-object-written")
    refname = branch_ref(repo)
    _hold_ref_lock_then_die(repo, refname, oid)
    subject = message.splitlines()[0] if message else "revetly write"
    if head is None:
        repo.create_reference(refname, oid, force=True, message=f"commit (initial): {subject}")
    else:
        repo.lookup_reference(refname).set_target(oid, f"commit: {subject}")
    crash_point("committed")
    refresh_index(root, files)
    crash_point("index-refreshed")
    return str(oid)


def refresh_index(root: Path, files: dict[str, bytes | None]) -> None:
    """Stage the committed paths too, so `git status` reads clean for them."""
    import pygit2

    repo = pygit2.Repository(str(root))
    index = repo.index
    index.read()
    for rel, data in files.items():
        if data is not None and (root / rel).is_file():
            index.add(rel)
        else:
            with suppress(OSError, KeyError):
                index.remove(rel)
    index.write()
