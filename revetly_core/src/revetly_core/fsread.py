"""Reading files we did not write: bounded before the read, regular files only, never outside a root.

Every file a source reads (the instance's own files, a Backlog.md or ADR repository read in
place) comes through here. The size is known before a byte is read (``fstat`` of the opened
file, or the blob header in git's object store), only regular files are read, and a path that
resolves outside the root it was listed under (a symlink out of the instance, ``/dev/zero``, a
FIFO elsewhere) is refused. A refusal is a :class:`ReadRefused` naming a problem code, so the
caller skips that one file and ``revetly check`` names it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
              | getattr(os, "O_CLOEXEC", 0))
"""A read open: never through a final symlink, never blocking on a FIFO, never inherited."""

CHUNK = 1 << 16


class ReadRefused(Exception):
    """A file that is not read, and why: ``code`` is the problem code ``check`` shows."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def display_path(path: str) -> str:
    """A path as text anyone can store and print: bytes that are not UTF-8 shown as ``\\xNN``."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def name_problem(path: str) -> ReadRefused | None:
    """A file name that is not UTF-8 text (git hands it over with surrogates), else None."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return ReadRefused("bad-name", "the file name is not UTF-8 text; the file is skipped")
    return None


def resolved_under(real_root: str, rel: str) -> str:
    """``os.path.realpath(os.path.join(real_root, rel))`` for a root that is its own real path:
    only the parts of ``rel`` are looked at (one ``lstat`` each), and anything but plain names
    that are no symlinks (a link, ``..``, a missing part) is resolved by ``realpath`` itself."""
    whole = os.path.join(real_root, rel)
    if os.name != "posix" or not rel or rel.startswith("/"):
        return os.path.realpath(whole)
    path = real_root.rstrip("/")
    for part in rel.split("/"):
        if part in ("", ".", ".."):
            return os.path.realpath(whole)
        path = f"{path}/{part}"
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return os.path.realpath(whole)
        if stat.S_ISLNK(mode):
            return os.path.realpath(whole)
    return path


def contained(root: Path, rel: str, real_root: str | None = None) -> str:
    """The real path of ``root/rel``, refused when it (or a link on the way) leads out of root
    (``real_root``: root's real path when the caller resolved it once for many files)."""
    real_root = real_root or os.path.realpath(root)
    real = resolved_under(real_root, rel)
    if real != real_root and os.path.commonpath([real_root, real]) != real_root:
        raise ReadRefused(
            "outside-root",
            f"a symlink leads out of {real_root} (to {display_path(real)}); it is not followed",
        )
    return real


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISLNK, "symlink")):
        if test(mode):
            return word
    return "special file"


def over_limit(size: int, limit: int) -> ReadRefused | None:
    """The refusal for a file of ``size`` bytes when it is over ``limit``, else None."""
    if size > limit:
        return ReadRefused("too-large", f"{size} bytes is over the {limit}-byte limit")
    return None


def read_file(root: Path, rel: str, limit: int, real_root: str | None = None) -> bytes:
    """The bytes of the regular file ``root/rel`` (at most ``limit``), checked before reading.

    Raises FileNotFoundError when there is no such file (the caller may read git's copy), and
    ReadRefused when the path leaves root, is not a regular file, or is over the limit.
    """
    bad_name = name_problem(rel)
    if bad_name is not None:
        raise bad_name
    real = contained(root, rel, real_root)
    try:
        fd = os.open(real, OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ReadRefused("unreadable", f"the file cannot be opened: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReadRefused("not-regular",
                              f"a {_kind(info.st_mode)}, not a regular file; it is not read")
        refused = over_limit(info.st_size, limit)
        if refused is not None:
            raise refused
        return _read_capped(fd, limit)
    finally:
        os.close(fd)


def _read_capped(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from fd; a file that grew past it while read is refused."""
    parts: list[bytes] = []
    got = 0
    while got <= limit:
        part = os.read(fd, min(CHUNK, limit + 1 - got))
        if not part:
            break
        parts.append(part)
        got += len(part)
    if got > limit:
        raise ReadRefused("too-large", f"the file grew past the {limit}-byte limit while read")
    return b"".join(parts)


def blob_size(repo: Any, blob: str) -> int:
    """The size of a git blob from its object header, without inflating its content."""
    _type, size = repo.odb.read_header(blob)
    return int(size)


def read_blob(repo: Any, blob: str, limit: int) -> bytes:
    """A git blob's bytes, refused by its header's size before it is read when over ``limit``."""
    refused = over_limit(blob_size(repo, blob), limit)
    if refused is not None:
        raise refused
    return bytes(repo[blob].data)


def read_worktree_or_blob(
    root: Path, rel: str, repo: Any, blob: str, limit: int, real_root: str | None = None
) -> bytes:
    """The work tree's copy of a listed file, else git's blob of it; bounded either way."""
    try:
        return read_file(root, rel, limit, real_root)
    except FileNotFoundError:
        return read_blob(repo, blob, limit)


def stand_in_id(refused: ReadRefused, root: Path, rel: str) -> str:
    """A stand-in blob id for a file that is not read: it changes when the file does.

    It starts with ``r`` (never a hex digit), so it can never be mistaken for a git blob id.
    """
    import hashlib

    try:
        info = os.stat(os.path.join(root, rel), follow_symlinks=False)
        stamp = f"{info.st_mode}:{info.st_size}:{info.st_mtime_ns}"
    except OSError:
        stamp = "gone"
    text = f"refused:{refused.code}:{display_path(rel)}:{stamp}"
    return "r" + hashlib.sha1(text.encode()).hexdigest()[:39]


def is_stand_in(blob: str) -> bool:
    """True for an id :func:`stand_in_id` made (a file refused when listed)."""
    return blob.startswith("r")


def worktree_blob_id(root: Path, rel: str, limit: int) -> str | ReadRefused | None:
    """git's blob id of a work-tree file, the refusal that keeps it unread, or None when gone."""
    import pygit2

    try:
        return str(pygit2.hash(read_file(root, rel, limit)))
    except FileNotFoundError:
        return None
    except ReadRefused as refused:
        return refused


class Listing:
    """The files a source would read: path -> blob id, and the refusals met while listing.

    A refused file is listed under its display path with a stand-in id, so the pass names it
    once per change and never tries to read it.
    """

    def __init__(self, root: Path, limit: int) -> None:
        self.root = root
        self.limit = limit
        self.blobs: dict[str, str] = {}
        self.refused: dict[str, ReadRefused] = {}
        self._real_root: str | None = None

    @property
    def real_root(self) -> str:
        """The root's real path, resolved once: every file this listing reads is checked
        against the instance as it was when the listing first read."""
        if self._real_root is None:
            self._real_root = os.path.realpath(self.root)
        return self._real_root

    def add_tree_entry(self, path: str, blob: str) -> None:
        """A file of the committed tree (its name checked, its content read later)."""
        bad = name_problem(path)
        if bad is None:
            self.blobs[path] = blob
        else:
            self.refuse(path, bad)

    def add_worktree(self, path: str) -> None:
        """A file git status reports changed or untracked: hashed by a bounded read."""
        found = worktree_blob_id(self.root, path, self.limit)
        if found is None:
            self.blobs.pop(path, None)
            self.refused.pop(path, None)
        elif isinstance(found, ReadRefused):
            self.refuse(path, found)
        else:
            self.blobs[path] = found
            self.refused.pop(path, None)

    def refuse(self, path: str, refused: ReadRefused) -> None:
        shown = display_path(path)
        self.blobs.pop(path, None)
        self.blobs[shown] = stand_in_id(refused, self.root, path)
        self.refused[shown] = refused

    def read(self, path: str, repo: Any, blob: str) -> bytes:
        """The bytes of a listed file, bounded; raises the refusal met when it was listed."""
        if path in self.refused:
            raise self.refused[path]
        return read_worktree_or_blob(self.root, path, repo, blob, self.limit, self.real_root)
