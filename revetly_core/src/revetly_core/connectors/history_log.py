"""What each commit of a history walk changed against its first parent: one `git log` when git
is on PATH, libgit2's tree-to-tree diffs when it is not.

At 100,000 files libgit2's diffs were most of the history walk's 8.2 s of CPU, while one `git
log --raw` of the same commits costs 2.2 s, parse included (decision 0033, amended). The
commits themselves (their order, author, time and message) always come from libgit2's walk;
git is named exactly those commits on its standard input (it walks nothing), only says which
files each one added, modified or deleted, and is believed only when it answers for exactly
those commits. Its answer follows libgit2's rules: no rename or copy detection, a merge
diffed against its first parent only, a root commit against the empty tree, and a change of a
file's type (a file turned symlink or gitlink) split into a deletion and an addition, which
is what libgit2 reports when type changes are not asked for. libgit2 answers instead for a
walk shorter than ``GIT_LOG_MIN_COMMITS``, and when git is not on PATH, cannot run, exits
non-zero, prints what cannot be parsed, prints more than ``GIT_LOG_MAX_BYTES`` or has not
finished in ``GIT_LOG_TIMEOUT_S``.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, NamedTuple

from revetly_core.connectors.worktree_status import git_environment

log = logging.getLogger("revetly.connectors.history_log")

ADDED, MODIFIED, DELETED = "added", "modified", "deleted"
NO_BLOB = ""
"""The ``old_blob`` of a change that is not a deletion (only deletions carry the blob they removed)."""

GIT_LOG_OPTIONS = (
    "--no-pager",
    "--no-replace-objects",  # libgit2 does not follow refs/replace/: neither does this
    "--no-optional-locks",  # a background pass never takes a lock the user's own git needs
    "log",
    "--no-walk=unsorted", "--stdin",  # exactly the commits named on the standard input
    "--raw", "-z", "--format=%H",  # one NUL-ended commit id, then its raw records, paths verbatim
    "--encoding=none",  # i18n.logOutputEncoding (UTF-16, say) would re-code even the ids
    "--no-abbrev",  # full blob ids whatever core.abbrev says
    "--no-renames",  # diff.renames (copies, too) never pairs a deletion with an addition
    "--diff-merges=first-parent",  # a merge against its first parent, whatever log.diffMerges says
    "--root",  # a root commit against the empty tree, whatever log.showRoot says
    "--ignore-submodules=none",  # a gitlink's change is reported, whatever diff.ignoreSubmodules says
    "--no-relative",  # paths from the top of the repository, whatever diff.relative says
    "-O/dev/null",  # paths in tree order, whatever diff.orderFile says
    "--no-show-signature", "--no-decorate", "--no-color", "--no-ext-diff", "--no-textconv",
)
"""The options of the one `git log`; each one pins what a configuration could otherwise change
(the author, date and message are never asked of git, so mailmap does not apply)."""
GIT_LOG_MIN_COMMITS = 4
"""A walk of fewer commits is diffed by libgit2: at 100k files git's start plus the scoped read's
diff on a cold tree cache cost more than libgit2's own diffs below about four commits
(decision 0033, amended)."""
GIT_LOG_TIMEOUT_S = 120.0
"""A `git log` that has not finished by then is killed and libgit2 answers instead."""
GIT_LOG_MAX_BYTES = 1 << 31
"""A `git log` printing more than this is stopped and libgit2 answers instead."""
READ_CHUNK = 1 << 20


class FileChange(NamedTuple):
    """One file a commit added, modified or deleted, against its first parent."""

    change: str
    path: str
    """The repository path as pygit2 names it (surrogates for bytes that are not UTF-8)."""
    old_blob: str = NO_BLOB
    """The blob a deletion removed (empty for an addition or a modification)."""


Wanted = Callable[[str], bool]


def first_parent_changes(
    repo: Any, commits: Sequence[Any], *, prefix: str = "", wanted: Wanted | None = None,
    git: str | None = None,
) -> Iterator[tuple[Any, list[FileChange]]]:
    """Each of ``commits`` (libgit2's walk, in its order) with the files it changed under
    ``prefix`` for which ``wanted`` holds, in the order of its diff.
    ``git``: the git executable to ask (default: the one on PATH; ``""`` asks libgit2 only)."""
    by_git = git_changes(repo, commits, prefix=prefix, wanted=wanted, git=git)
    for commit in commits:
        if by_git is not None:
            yield commit, by_git[str(commit.id)]
        else:
            yield commit, libgit2_changes(repo, commit, prefix=prefix, wanted=wanted)


def git_changes(
    repo: Any, commits: Sequence[Any], *, prefix: str = "", wanted: Wanted | None = None,
    git: str | None = None,
) -> dict[str, list[FileChange]] | None:
    """commit id -> its changes, from one `git log` of exactly ``commits`` (named on its standard
    input, nothing walked); None when there are fewer than GIT_LOG_MIN_COMMITS, or git is not
    there, fails or does not answer for exactly those commits (then libgit2 answers)."""
    if len(commits) < max(GIT_LOG_MIN_COMMITS, 1):
        return None
    exe = shutil.which("git") if git is None else git
    workdir = repo.workdir or repo.path
    if not exe or not workdir:
        return None
    names = [str(c.id) for c in commits]
    found = run_git_log(exe, workdir, names, keep=_keeper(prefix, wanted))
    if found is None:
        return None
    if len(found) != len(set(names)) or any(name not in found for name in names):
        log.info("git log answered for other commits than libgit2's walk (%d, %d); libgit2 "
                 "answers", len(found), len(names))
        return None
    return found


def _keeper(prefix: str, wanted: Wanted | None) -> Wanted:
    """Whether a changed path is kept: under the folder, and wanted."""
    if wanted is None:
        return (lambda path: path.startswith(prefix)) if prefix else (lambda path: True)
    if not prefix:
        return wanted
    return lambda path: path.startswith(prefix) and wanted(path)


def run_git_log(exe: str, workdir: str, commits: list[str],
                keep: Wanted) -> dict[str, list[FileChange]] | None:
    """Run `git log` of ``commits`` in ``workdir`` and parse what it prints as it prints it;
    None when it cannot run, fails, times out, prints too much or prints what is not parsed."""
    try:
        with tempfile.TemporaryFile() as stderr:
            return _run_git_log(exe, workdir, commits, keep, stderr)
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("git log could not run (%s); libgit2 answers", exc)
        return None


def _run_git_log(exe: str, workdir: str, commits: list[str], keep: Wanted,
                 stderr: IO[bytes]) -> dict[str, list[FileChange]] | None:
    proc = subprocess.Popen(
        [exe, *GIT_LOG_OPTIONS, "--"], cwd=workdir, env=git_environment(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
    )
    timer = threading.Timer(GIT_LOG_TIMEOUT_S, proc.kill)
    timer.start()
    try:
        assert proc.stdin is not None
        with proc.stdin:  # git reads every name before it prints anything
            proc.stdin.write("".join(f"{c}\n" for c in commits).encode("ascii"))
        parsed = _read_bounded(proc, keep)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
    if code != 0 or parsed is None:
        stderr.seek(0)
        log.info("git log exited %d (%s); libgit2 answers", code,
                 stderr.read(400).decode("utf-8", "replace").strip()[:200])
        return None
    return parsed


def _read_bounded(proc: subprocess.Popen[bytes],
                  keep: Wanted) -> dict[str, list[FileChange]] | None:
    """Parse the process's output chunk by chunk, at most GIT_LOG_MAX_BYTES of it."""
    assert proc.stdout is not None
    parser = RawLogParser(keep)
    total = 0
    while chunk := proc.stdout.read(READ_CHUNK):
        total += len(chunk)
        if total > GIT_LOG_MAX_BYTES:
            log.info("git log printed more than %d bytes; libgit2 answers", GIT_LOG_MAX_BYTES)
            return None
        if not parser.feed(chunk):
            return None
    return parser.finish()


class RawLogParser:
    """`git log --raw -z --format=%H` output, fed in pieces: each commit id ends with a NUL;
    each raw record is ``:mode mode blob blob STATUS`` NUL path NUL (the first after a newline)."""

    def __init__(self, keep: Wanted) -> None:
        self.keep = keep
        self.commits: dict[str, list[FileChange]] = {}
        self.current: list[FileChange] | None = None
        self.record: bytes | None = None  # a raw record whose path is the next token
        self.rest = b""
        self.broken = False

    def feed(self, chunk: bytes) -> bool:
        """Take the next piece of output; False once it is not what git prints."""
        tokens = (self.rest + chunk).split(b"\0")
        self.rest = tokens.pop()
        for token in tokens:
            if not self._token(token):
                self.broken = True
                return False
        return True

    def finish(self) -> dict[str, list[FileChange]] | None:
        """Every commit's changes, or None when the output ended inside a record."""
        if self.broken or self.record is not None or self.rest.strip(b"\n"):
            return None
        return self.commits

    def _token(self, token: bytes) -> bool:
        if self.record is not None:
            record, self.record = self.record, None
            return self._change(record, token)
        token = token.lstrip(b"\n")
        if token.startswith(b":"):
            self.record = token
            return self.current is not None
        if len(token) not in (40, 64) or not all(c in b"0123456789abcdef" for c in token):
            return False
        self.current = self.commits.setdefault(token.decode("ascii"), [])
        return True

    def _change(self, record: bytes, raw_path: bytes) -> bool:
        if self.current is None or record.count(b" ") != 4:
            return False
        path = raw_path.decode("utf-8", "surrogateescape")
        if not self.keep(path):
            return True
        status = record[-1:] if record[-2:-1] == b" " else b"?"  # A, M, D, T (no scores: no renames)
        changes = LIBGIT2_CHANGES.get(status, ())
        if changes is ONE_ADDED or changes is ONE_MODIFIED:
            self.current.append(FileChange(changes[0], path))
            return True
        old_blob = record.split(b" ", 3)[2].decode("ascii")
        for change in changes:
            self.current.append(FileChange(change, path, old_blob if change == DELETED else NO_BLOB))
        return True


ONE_ADDED, ONE_MODIFIED = (ADDED,), (MODIFIED,)
LIBGIT2_CHANGES: dict[bytes, tuple[str, ...]] = {
    b"A": ONE_ADDED, b"M": ONE_MODIFIED, b"D": (DELETED,), b"T": (DELETED, ADDED)}
"""The changes libgit2 reports for each of git's raw statuses: a type change is a deletion and
then an addition; a status libgit2's history does not count (unmerged, unknown), none."""


def changes_of(status: bytes) -> tuple[str, ...]:
    """The changes libgit2 reports for one of git's raw statuses (``LIBGIT2_CHANGES``)."""
    return LIBGIT2_CHANGES.get(status, ())


def libgit2_changes(repo: Any, commit: Any, *, prefix: str = "",
                    wanted: Wanted | None = None) -> list[FileChange]:
    """The files ``commit`` changed under ``prefix`` against its first parent, by libgit2's
    tree diff (of the folder's subtrees only, when there is a folder)."""
    import pygit2

    words = {pygit2.enums.DeltaStatus.ADDED: ADDED,
             pygit2.enums.DeltaStatus.MODIFIED: MODIFIED,
             pygit2.enums.DeltaStatus.DELETED: DELETED}
    before = subtree(repo, commit.parents[0].tree, prefix) if commit.parents else None
    after = subtree(repo, commit.tree, prefix)
    if before is None and after is None:
        return []
    if before is not None and after is not None and before.id == after.id:
        return []
    if before is None:
        diff = after.diff_to_tree(swap=True)
    elif after is None:
        diff = before.diff_to_tree()
    else:
        diff = repo.diff(before, after)
    keep = _keeper(prefix, wanted)
    found: list[FileChange] = []
    for delta in diff.deltas:
        change = words.get(delta.status)
        if change is None:
            continue
        deleted = change == DELETED
        path = prefix + (delta.old_file.path if deleted else delta.new_file.path)
        if keep(path):
            found.append(FileChange(change, path, str(delta.old_file.id) if deleted else NO_BLOB))
    return found


def subtree(repo: Any, tree: Any, prefix: str) -> Any:
    """The tree at ``prefix`` (``"folder/"``) inside ``tree``; None when there is no such tree."""
    if not prefix:
        return tree
    import pygit2

    try:
        found = repo[tree[prefix.rstrip("/")].id]
    except KeyError:
        return None
    return found if found.type == pygit2.enums.ObjectType.TREE else None


def hides_prior(repo: Any, walker: Any, head: str, prior_head: str | None) -> bool:
    """Hide ``prior_head`` from ``walker`` when it is HEAD or one of its ancestors (True: the
    walk is then incremental); a prior head that is gone or unrelated hides nothing."""
    if not prior_head:
        return False
    import pygit2

    try:
        if prior_head == head or repo.descendant_of(head, prior_head):
            walker.hide(prior_head)
            return True
    except (pygit2.GitError, ValueError, KeyError):
        log.info("%s: prior head %s is gone; reading the whole history", repo.path, prior_head)
    return False
