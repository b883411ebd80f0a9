"""The commits connector: a declared code repository's commits, read with pygit2."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any

from revetly_core.config import CommitsConnector as CommitsSettings
from revetly_core.connectors.base import KnownArtifact, Progress, Removal, SourceBatch, no_progress
from revetly_core.connectors.gittime import commit_subject_body, commit_time
from revetly_core.connectors.history_log import FileChange, git_changes
from revetly_core.model import COMMIT_TYPE, Artifact

log = logging.getLogger("revetly.connectors.commits")

MAX_FILES_PER_COMMIT = 200
"""A commit touching more files than this keeps the first ones and counts the rest."""
MAX_GAPS = 20
"""At most this many unreadable commits are named one by one; the rest are counted."""


def note_gap(batch: SourceBatch, sha: str, exc: Exception) -> None:
    """Mark the batch partial and name (up to MAX_GAPS) a commit whose objects git cannot
    read (a snapshot missing blobs or trees): the read goes on without it."""
    batch.partial = True
    if len(batch.gaps) < MAX_GAPS:
        batch.gaps.append(f"{sha}: {exc}")
    elif len(batch.gaps) == MAX_GAPS:
        batch.gaps.append("more commits could not be read")


def backfill_state(cursor: dict[str, Any], declared: str | None) -> dict[str, Any] | None:
    """What `revetly backfill` read below the declared floor (kept in the cursor), or None when
    it read nothing there or the floor since moved below what it read."""
    state = cursor.get("backfill")
    if not isinstance(state, dict) or not isinstance(state.get("to"), str) or declared is None:
        return None
    if state["to"] >= declared:
        return None
    return {"to": state["to"], "target": state.get("target"),
            "windows_left": int(state.get("windows_left") or 0)}


def changed_paths(changes: list[FileChange]) -> list[str]:
    """A commit's files as the artifact lists them: every path it changed, once, sorted."""
    return sorted({c.path for c in changes})


def commits_source_id(name: str) -> str:
    """The source id of a declared code repository: ``commits/<name>``."""
    return f"commits/{name}"


class CommitsConnector:
    """Reads every commit reachable from a repository's HEAD, back to the declared floor."""

    def __init__(self, instance_root: Path, settings: CommitsSettings, project: str) -> None:
        self.settings = settings
        self.source_id = commits_source_id(settings.name)
        self.project = settings.project or project
        path = Path(settings.path).expanduser()
        self.path = path if path.is_absolute() else (instance_root / path).resolve()

    def read(
        self,
        known: dict[str, KnownArtifact],
        cursor: dict[str, Any],
        *,
        full: bool,
        now: str,
        progress: Progress = no_progress,
    ) -> SourceBatch:
        import pygit2

        batch = SourceBatch(source=self.source_id)
        floor = self.settings.since
        declared = floor.isoformat() if floor else None
        backfill = backfill_state(cursor, declared)
        batch.floor = backfill["to"] if backfill else declared
        batch.partial = bool(backfill and backfill["windows_left"])
        try:
            repo = pygit2.Repository(str(self.path))
        except pygit2.GitError as exc:
            raise RuntimeError(f"{self.path} is not a readable git repository: {exc}") from exc
        if repo.head_is_unborn:
            batch.cursor = {"head": None}
            return batch
        keep = {"backfill": backfill} if backfill else {}
        head = repo.head.target
        walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
        prior = None if full else cursor.get("head")
        if prior and cursor.get("since") == declared:
            try:
                if str(head) == prior or repo.descendant_of(head, prior):
                    walker.hide(prior)
                    batch.complete = False
            except (pygit2.GitError, ValueError, KeyError):
                log.info("%s: prior head %s is gone; re-reading all", self.source_id, prior)
        floor_ts = (
            dt.datetime.combine(floor, dt.time(), tzinfo=dt.UTC).timestamp() if floor else None
        )
        kept, stopped = self._walk(walker, floor_ts, progress)
        listed = git_changes(repo, kept)  # every kept commit's files at once, when git is there
        for commit in kept:
            try:
                files = None if listed is None else changed_paths(listed[str(commit.id)])
                a = self._artifact(repo, commit, files)
            except (pygit2.GitError, KeyError, ValueError) as exc:
                note_gap(batch, str(commit.id), exc)
                continue
            if "files_unreadable" in a.metadata:
                note_gap(batch, a.id, RuntimeError(a.metadata["files_unreadable"]))
            batch.upserts.append(a)
        if stopped is not None:
            note_gap(batch, "history", stopped)  # the walk cannot go further back
            batch.complete = False  # so nothing unseen is taken as removed
        batch.read_count = len(batch.upserts)
        batch.cursor = {"head": str(head), "since": declared, **keep}
        if batch.complete:
            seen = {a.id for a in batch.upserts}
            below_floor = {a for a in known if a not in seen} & self._older_than(repo, floor_ts)
            for k in sorted(known.values(), key=lambda k: k.id):
                if not k.deleted and k.id not in seen and k.id not in below_floor:
                    batch.removals.append(
                        Removal(k.id, now, "found", "no longer reachable from the repository HEAD")
                    )
        return batch

    def _walk(self, walker: Any, floor_ts: float | None,
              progress: Progress) -> tuple[list[Any], Exception | None]:
        """(the walk's commits not older than the floor, why the walk stopped short or None)."""
        import pygit2

        kept: list[Any] = []
        commits = iter(walker)
        i = 0
        while True:
            try:
                commit = next(commits)
            except StopIteration:
                return kept, None
            except (pygit2.GitError, KeyError, ValueError) as exc:
                return kept, exc
            if i % 200 == 0:
                progress(f"read {self.source_id}", i, 0)
            i += 1
            if floor_ts is None or commit.author.time >= floor_ts:
                kept.append(commit)

    @staticmethod
    def _older_than(repo: Any, floor_ts: float | None) -> set[str]:
        """Commits reachable from HEAD but older than the floor: unread, never deleted."""
        if floor_ts is None:
            return set()
        import pygit2

        walker = repo.walk(repo.head.target, pygit2.enums.SortMode.TIME)
        return {str(c.id) for c in walker if c.author.time < floor_ts}

    def _artifact(self, repo: Any, commit: Any, listed: list[str] | None = None) -> Artifact:
        """The commit's artifact; its files are ``listed`` (by git), else libgit2's diff."""
        import pygit2

        subject, body = commit_subject_body(commit.message)
        unreadable: str | None = None
        if listed is not None:
            files = listed
        else:
            try:
                files = self._files(repo, commit)
            except (pygit2.GitError, KeyError, ValueError) as exc:
                files, unreadable = [], str(exc)
        at = commit_time(commit)
        metadata: dict[str, Any] = {
            "repository": self.settings.name,
            "author": commit.author.name,
            "author_email": commit.author.email,
            "files": files[:MAX_FILES_PER_COMMIT],
            "declared": {},
        }
        if unreadable is not None:
            metadata["files_unreadable"] = unreadable
        if len(files) > MAX_FILES_PER_COMMIT:
            metadata["files_more"] = len(files) - MAX_FILES_PER_COMMIT
        if len(commit.parents) > 1:
            metadata["merge"] = True
        sha = str(commit.id)
        return Artifact(
            id=sha,
            type=COMMIT_TYPE,
            title=subject,
            source=self.source_id,
            project=self.project,
            body=body,
            owner=commit.author.name,
            metadata=metadata,
            source_path=f"{self.settings.name}@{sha[:12]}",
            source_uri=f"{self.settings.name}@{sha}",
            blob=sha,
            created_at=at,
            source_updated_at=at,
        )

    @staticmethod
    def _files(repo: Any, commit: Any) -> list[str]:
        """The paths libgit2's diff against the first parent (or the empty tree) names."""
        if commit.parents:
            diff = repo.diff(commit.parents[0].tree, commit.tree)
        else:
            diff = commit.tree.diff_to_tree(swap=True)
        return sorted({d.new_file.path or d.old_file.path for d in diff.deltas})
