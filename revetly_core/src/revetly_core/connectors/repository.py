"""The repository connector: the instance's own markdown files, dated by their git history."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from revetly_core.config import Config
from revetly_core.connectors.base import (
    FileProblem,
    KnownArtifact,
    Progress,
    Removal,
    SourceBatch,
    no_progress,
)
from revetly_core.connectors.gittime import commit_subject_body, commit_time
from revetly_core.ids import id_key
from revetly_core.markdown.criteria import parse_criteria
from revetly_core.markdown.frontmatter import FrontmatterError, split_frontmatter
from revetly_core.model import Artifact, HistoryEntry
from revetly_core.schema import Frontmatter, describe_error

log = logging.getLogger("revetly.connectors.repository")

SOURCE_ID = "repository"
DECLARED_FIELDS = (
    "parent", "cites", "references", "related_ids", "supersedes", "revises", "delivers",
    "implemented_by",
)


@dataclass(frozen=True)
class _Deletion:
    at: str
    revision: str
    blob: str


def parse_artifact_file(
    rel_path: str, data: bytes, *, config: Config, project: str, blob: str | None = None
) -> Artifact | FileProblem:
    """Parse one instance file into an Artifact, or the problem that keeps it out."""

    def problem(code: str, detail: str) -> FileProblem:
        return FileProblem(SOURCE_ID, rel_path, code, detail, blob)

    limit = config.connectors.repository.max_file_bytes
    if len(data) > limit:
        return problem("too-large", f"{len(data)} bytes is over the {limit}-byte limit")
    if b"\x00" in data:
        return problem("binary", "the file holds NUL bytes: not a markdown text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return problem("not-utf8", f"not UTF-8 text (byte {exc.start})")
    try:
        raw, body = split_frontmatter(text)
    except FrontmatterError as exc:
        code = "bad-yaml" if "YAML" in str(exc) or "mapping" in str(exc) else "no-frontmatter"
        return problem(code, str(exc))
    try:
        fm = Frontmatter.model_validate(raw)
    except ValidationError as exc:
        return problem("schema", describe_error(exc))
    key = id_key(fm.id)
    families = config.ids.families
    if key is None or key.sub or key.family not in families or fm.id != fm.id.strip():
        return problem(
            "unknown-family",
            f"id {fm.id!r} is not FAMILY-NUMBER of a declared family ({', '.join(families)})",
        )
    digits = re.search(r"(\d+)$", fm.id.strip())
    canonical_id = f"{key.family}-{digits.group(1)}" if digits else fm.id
    declared: dict[str, Any] = {}
    for name in DECLARED_FIELDS:
        value = getattr(fm, name)
        if name == "revises":
            value = [e.model_dump(exclude_none=True) for e in value]
        if value:
            declared[name] = value
    metadata = fm.extra_metadata()
    for name in ("delivered_by",):
        if getattr(fm, name):
            metadata[name] = getattr(fm, name)
    if fm.withheld:
        metadata["withheld"] = True
    if fm.verdicts:
        metadata["verdicts"] = [v.model_dump(exclude_none=True) for v in fm.verdicts]
    if fm.created:
        metadata["declared_created"] = fm.created
    if fm.updated:
        metadata["declared_updated"] = fm.updated
    metadata["declared"] = declared
    criteria = parse_criteria(body)
    return Artifact(
        id=canonical_id,
        type=fm.type,
        title=fm.title,
        source=SOURCE_ID,
        project=project,
        body=body,
        status=fm.status,
        parent=fm.parent,
        owner=fm.owner,
        criteria=list(criteria.items),
        criteria_unparsed=criteria.unparsed,
        metadata=metadata,
        source_path=rel_path,
        source_uri=rel_path,
        blob=blob,
        created_at=fm.created,
        source_updated_at=fm.updated,
        aliases=list(fm.aliases),
        provenance="source-of-record",
    )


def _key_of(artifact_id: str) -> str:
    """Two ids are one id when family and number agree, whatever the padding or case."""
    key = id_key(artifact_id)
    return artifact_id if key is None else key.text()


class RepositoryConnector:
    """Reads backlog/, notes/ and records/ (or the declared folders) of the instance repo."""

    source_id = SOURCE_ID

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.project = config.default_project
        self.folders = tuple(p.strip("/") + "/" for p in config.connectors.repository.paths)

    def _wanted(self, path: str) -> bool:
        return path.endswith(".md") and path.startswith(self.folders)

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

        batch = SourceBatch(source=SOURCE_ID)
        try:
            repo = pygit2.Repository(str(self.root))
        except pygit2.GitError as exc:
            raise RuntimeError(f"the instance at {self.root} is not a git repository: {exc}") from exc
        head = None if repo.head_is_unborn else repo.head.target
        prior_head = None if full else cursor.get("head")
        deletions = self._walk_history(repo, head, prior_head, batch, progress)

        current = self._current_blobs(repo, head)
        known_by_path = {k.path: k for k in known.values() if k.path and not k.deleted}
        prior_problems: dict[str, str | None] = {} if full else dict(cursor.get("problems", {}))
        changed = sorted(
            p for p, b in current.items()
            if full
            or ((p not in known_by_path or known_by_path[p].blob != b)
                and prior_problems.get(p, "\0") != b)
        )
        # An unchanged file that broke the schema stays named (in the store) without a re-read.
        problems: dict[str, str | None] = {
            p: b for p, b in prior_problems.items() if p in current and current[p] == b
        }
        batch.cleared_paths = set(changed) | {
            p for p, b in prior_problems.items() if current.get(p) != b
        }
        ids_by_path: dict[str, str] = {
            p: k.id for p, k in known_by_path.items() if p in current and p not in changed
        }
        owner_of: dict[str, str] = {}  # canonical id key -> the path holding it
        for p in sorted(ids_by_path):
            owner_of.setdefault(_key_of(ids_by_path[p]), p)
        total = len(changed)
        for i, path in enumerate(changed):
            if i % 500 == 0:
                progress("read files", i, total)
            blob = current[path]
            parsed = parse_artifact_file(
                path, self._read_bytes(repo, path, blob), config=self.config,
                project=self.config.project_for_path(path), blob=blob,
            )
            if isinstance(parsed, FileProblem):
                batch.problems.append(parsed)
                problems[path] = blob
                continue
            holder = owner_of.get(_key_of(parsed.id))
            if holder is not None and holder != path:
                first, second = sorted((holder, path))
                if second == path:
                    batch.problems.append(FileProblem(
                        SOURCE_ID, path, "duplicate-id",
                        f"id {parsed.id} is also declared by {first}; this file is skipped", blob,
                    ))
                    continue  # duplicates are re-judged every pass, never cached
                # the new file sorts first: it holds the id; the other is named as the duplicate
                batch.problems.append(FileProblem(
                    SOURCE_ID, holder, "duplicate-id",
                    f"id {parsed.id} is also declared by {path}; this file is skipped",
                    current.get(holder),
                ))
                batch.upserts = [a for a in batch.upserts if a.source_path != holder]
            owner_of[_key_of(parsed.id)] = path
            ids_by_path[path] = parsed.id
            batch.upserts.append(parsed)
        progress("read files", total, total)
        batch.read_count = total

        live_ids = {ids_by_path[p] for p in owner_of.values()}
        self._deleted_records(repo, deletions, current, live_ids, known, batch)
        for k in sorted(known.values(), key=lambda k: k.id):
            if k.deleted or k.id in live_ids or any(a.id == k.id for a in batch.upserts):
                continue
            if k.path in current and k.path in problems:
                continue  # a malformed file keeps its last good artifact serving
            batch.removals.append(Removal(k.id, now, "found", "missing from a complete read"))
        batch.cursor = {"head": str(head) if head else None,
                        "problems": {p: b for p, b in sorted(problems.items())}}
        return batch

    def list_files(self) -> dict[str, str]:
        """path -> blob id of every file this connector would read, as the work tree has it."""
        import pygit2

        repo = pygit2.Repository(str(self.root))
        return self._current_blobs(repo, None if repo.head_is_unborn else repo.head.target)

    def read_file(self, path: str, blob: str) -> Artifact | FileProblem:
        """Parse one listed file the way a pass would."""
        import pygit2

        repo = pygit2.Repository(str(self.root))
        return parse_artifact_file(
            path, self._read_bytes(repo, path, blob), config=self.config,
            project=self.config.project_for_path(path), blob=blob,
        )

    def _read_bytes(self, repo: Any, path: str, blob: str) -> bytes:
        disk = self.root / path
        try:
            return disk.read_bytes()
        except OSError:
            return bytes(repo[blob].data)

    def _current_blobs(self, repo: Any, head: Any) -> dict[str, str]:
        """path -> blob id of every wanted file as the work tree has it now."""
        import pygit2

        blobs: dict[str, str] = {}
        if head is not None:
            tree = repo[head].tree
            for folder in self.folders:
                name = folder.rstrip("/")
                try:
                    entry = tree[name]
                except KeyError:
                    continue
                self._list_tree(repo, repo[entry.id], name, blobs)
        for path, flags in repo.status(untracked_files="all").items():
            if not self._wanted(path) or flags & pygit2.enums.FileStatus.IGNORED:
                continue
            disk = self.root / path
            if disk.is_file():
                blobs[path] = str(pygit2.hash(disk.read_bytes()))
            else:
                blobs.pop(path, None)
        return blobs

    def _list_tree(self, repo: Any, tree: Any, prefix: str, out: dict[str, str]) -> None:
        import pygit2

        for entry in tree:
            path = f"{prefix}/{entry.name}"
            if entry.type == pygit2.enums.ObjectType.TREE:
                self._list_tree(repo, repo[entry.id], path, out)
            elif self._wanted(path):
                out[path] = str(entry.id)

    def _walk_history(
        self, repo: Any, head: Any, prior_head: str | None, batch: SourceBatch, progress: Progress
    ) -> dict[str, _Deletion]:
        """Add a history entry per commit that touched a wanted file; return paths deleted."""
        import pygit2

        deletions: dict[str, _Deletion] = {}
        if head is None:
            return deletions
        walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
        if prior_head:
            try:
                if repo.descendant_of(head, prior_head) or str(head) == prior_head:
                    walker.hide(prior_head)
                    batch.history_complete = False
            except (pygit2.GitError, ValueError, KeyError):
                log.info("prior head %s is gone; reading the whole history", prior_head)
        commits = list(walker)
        status_word = {
            pygit2.enums.DeltaStatus.ADDED: "added",
            pygit2.enums.DeltaStatus.MODIFIED: "modified",
            pygit2.enums.DeltaStatus.DELETED: "deleted",
        }
        for i, commit in enumerate(commits):
            if i % 100 == 0:
                progress("read history", i, len(commits))
            at = commit_time(commit)
            subject, _ = commit_subject_body(commit.message)
            if commit.parents:
                diff = repo.diff(commit.parents[0].tree, commit.tree)
            else:
                diff = commit.tree.diff_to_tree(swap=True)
            for delta in diff.deltas:
                change = status_word.get(delta.status)
                if change is None:
                    continue
                path = delta.new_file.path if change != "deleted" else delta.old_file.path
                if not self._wanted(path):
                    continue
                batch.history.append(HistoryEntry(
                    artifact_id=path, at=at, change=change, revision=str(commit.id),
                    author=commit.author.name, summary=subject,
                ))
                if change == "deleted":
                    deletions[path] = _Deletion(at, str(commit.id), str(delta.old_file.id))
                else:
                    deletions.pop(path, None)
        progress("read history", len(commits), len(commits))
        return deletions

    def _deleted_records(
        self,
        repo: Any,
        deletions: dict[str, _Deletion],
        current: dict[str, str],
        live_ids: set[str],
        known: dict[str, KnownArtifact],
        batch: SourceBatch,
    ) -> None:
        """A file a commit removed becomes a deleted artifact dated by that commit."""
        for path in sorted(deletions):
            if path in current:
                continue
            d = deletions[path]
            parsed = parse_artifact_file(
                path, bytes(repo[d.blob].data), config=self.config,
                project=self.config.project_for_path(path), blob=d.blob,
            )
            if isinstance(parsed, FileProblem) or parsed.id in live_ids:
                continue
            prior = known.get(parsed.id)
            if prior is not None and prior.deleted and prior.deleted_clock == "source-declared":
                continue
            parsed.deleted = True
            parsed.deleted_at = d.at
            parsed.deleted_clock = "source-declared"
            parsed.deleted_note = f"removed by commit {d.revision[:12]}"
            batch.upserts.append(parsed)
