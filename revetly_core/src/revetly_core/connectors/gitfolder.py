"""A folder of another git repository, read in place: its files by blob id, and their history.

Used by the sources that read a repository a team already has (Backlog.md, ADR folders).
Nothing is ever written into that repository.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from revetly_core.connectors.base import FileProblem, KnownArtifact, Progress, SourceBatch, no_progress
from revetly_core.connectors.gittime import commit_subject_body, commit_time
from revetly_core.connectors.history_log import first_parent_changes, hides_prior
from revetly_core.connectors.worktree_status import reported_paths
from revetly_core.fsread import Listing, ReadRefused, display_path, name_problem
from revetly_core.model import HistoryEntry

if TYPE_CHECKING:
    from revetly_core.config import Config, SourceRepoSettings

log = logging.getLogger("revetly.connectors.gitfolder")
T = TypeVar("T")


def resolve_repo_path(instance_root: Path, given: str) -> Path:
    """A declared repository path: ``~`` expanded, relative paths from the instance root."""
    path = Path(given).expanduser()
    return path if path.is_absolute() else (instance_root / path).resolve()


class FolderSource(ABC):
    """What every source read in place from a folder of another repository shares: the declared
    repository, the project it files into, finding its folder, and the read `revetly check` does."""

    def __init__(self, instance_root: Path, settings: SourceRepoSettings, config: Config,
                 source_id: str) -> None:
        self.source_id = source_id
        self.project = settings.project or config.default_project
        self.path = resolve_repo_path(instance_root, settings.path)
        self.max_file_bytes: int = getattr(settings, "max_file_bytes", 1_000_000)

    @abstractmethod
    def find_folder(self) -> str | None:
        """The folder inside the repository this source reads, or None when there is none."""

    @abstractmethod
    def missing_folder(self) -> str:
        """Why no folder was found, and the setting that names one."""

    @abstractmethod
    def read(self, known: dict[str, KnownArtifact], cursor: dict[str, Any], *, full: bool,
             now: str, progress: Progress = no_progress) -> SourceBatch:
        """The connector protocol's read (see connectors/base.py)."""

    def _folder(self) -> GitFolder:
        folder = self.find_folder()
        if folder is None:
            raise RuntimeError(self.missing_folder())
        return GitFolder(self.path, folder, self.max_file_bytes)

    def check(self) -> tuple[int, list[FileProblem]]:
        """(files read, problems): a full read in memory, for `revetly check`."""
        batch = self.read({}, {}, full=True, now="")
        return batch.read_count, batch.problems


@dataclass
class GitFolder:
    """The ``.md`` files under ``folder`` of the repository at ``root``, read bounded to
    ``limit`` bytes and never through a link out of that repository."""

    root: Path
    folder: str
    limit: int = 1_000_000

    def __post_init__(self) -> None:
        import pygit2

        try:
            self.repo: Any = pygit2.Repository(str(self.root))
        except pygit2.GitError as exc:
            raise RuntimeError(f"{self.root} is not a readable git repository: {exc}") from exc
        self.prefix = self.folder.strip("/") + "/" if self.folder.strip("/") else ""

    @property
    def head(self) -> str | None:
        return None if self.repo.head_is_unborn else str(self.repo.head.target)

    def wanted(self, path: str) -> bool:
        return path.endswith(".md") and path.startswith(self.prefix)

    def blobs(self) -> dict[str, str]:
        """repository path -> blob id of every ``.md`` file under the folder, work tree first.

        A file refused while listed (not UTF-8 named, too large, not regular, outside the
        repository) is listed with a stand-in id; :meth:`read` raises its refusal.
        """
        import pygit2

        self.listing = Listing(self.root, self.limit)
        head = self.head
        if head is not None:
            tree = self.repo[head].tree
            if self.prefix:
                try:
                    tree = self.repo[tree[self.prefix.rstrip("/")].id]
                except KeyError:
                    tree = None
            if tree is not None and tree.type == pygit2.enums.ObjectType.TREE:
                self._list(tree, self.prefix.rstrip("/"), self.listing)
        for path in reported_paths(self.repo):
            if self.wanted(path):
                self.listing.add_worktree(path)
        return dict(self.listing.blobs)

    def _list(self, tree: Any, prefix: str, out: Listing) -> None:
        import pygit2

        for entry in tree:
            path = f"{prefix}/{entry.name}" if prefix else entry.name
            if entry.type == pygit2.enums.ObjectType.TREE:
                self._list(self.repo[entry.id], path, out)
            elif self.wanted(path):
                out.add_tree_entry(path, str(entry.id))

    def read(self, path: str, blob: str) -> bytes:
        """The file's bytes: the work tree's copy, else the blob; bounded, inside the repository.

        Raises ReadRefused for a file that is not read.
        """
        listing = getattr(self, "listing", None) or Listing(self.root, self.limit)
        return listing.read(path, self.repo, blob)

    def read_or_problem(self, path: str, blob: str, source_id: str) -> bytes | FileProblem:
        """:meth:`read`, or the problem naming the file when it is refused or unreadable."""
        try:
            return self.read(path, blob)
        except ReadRefused as refused:
            code = "outside-repository" if refused.code == "outside-root" else refused.code
            return FileProblem(source_id, display_path(path), code, refused.detail, blob)
        except Exception as exc:  # git's copy is gone or unreadable: this file only
            return FileProblem(source_id, display_path(path), "unreadable",
                               f"the file could not be read ({type(exc).__name__}: {exc})", blob)

    def history(self, prior_head: str | None, *, git: str | None = None,
                ) -> tuple[list[HistoryEntry], bool]:
        """(entries, complete): one entry per commit that changed a file under the folder.

        Only commits after ``prior_head`` when it is still an ancestor (complete is then False).
        The files each commit changed come from `git log` when git is on PATH, else libgit2
        (``git`` as in :func:`first_parent_changes`).
        """
        import pygit2

        head = self.head
        if head is None:
            return [], True
        walker = self.repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL
                                | pygit2.enums.SortMode.REVERSE)
        incremental = hides_prior(self.repo, walker, head, prior_head)
        entries: list[HistoryEntry] = []
        for commit, changes in first_parent_changes(
                self.repo, list(walker), prefix=self.prefix, wanted=self.wanted, git=git):
            if not changes:
                continue
            at = commit_time(commit)
            subject, _ = commit_subject_body(commit.message)
            revision, author = str(commit.id), commit.author.name
            for change in changes:
                if name_problem(change.path) is None:
                    entries.append(HistoryEntry(change.path, at, change.change, revision,
                                                author, subject))
        return entries, not incremental


def guarded(source_id: str, path: str, blob: str | None, parse: Callable[..., T], /, *args: Any,
            **kwargs: Any) -> T | FileProblem:
    """``parse(*args, **kwargs)`` of one file, where any failure at all fails only that file
    (code ``unreadable``)."""
    try:
        return parse(*args, **kwargs)
    except Exception as exc:  # one file's content never stops the pass
        log.warning("%s: %s could not be read: %s", source_id, display_path(path), exc)
        return FileProblem(source_id, display_path(path), "unreadable",
                           f"the file could not be read ({type(exc).__name__}: {exc})", blob)


def changed_paths(
    current: dict[str, str], known: dict[str, KnownArtifact], prior_problems: dict[str, str],
    *, full: bool,
) -> list[str]:
    """Paths to re-read: new or changed blobs, except unchanged files already named broken."""
    by_path = {k.path: k for k in known.values() if k.path and not k.deleted}
    return sorted(
        p for p, b in current.items()
        if full or ((p not in by_path or by_path[p].blob != b) and prior_problems.get(p) != b)
    )
