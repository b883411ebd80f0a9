"""The repository connector: the instance's own markdown files, dated by their git history."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from revetly_core.config import Config
from revetly_core.connectors.base import (
    FileProblem,
    KnownArtifact,
    Progress,
    Removal,
    Sink,
    SourceBatch,
    no_progress,
)
from revetly_core.connectors.gitfolder import guarded
from revetly_core.connectors.gittime import commit_subject_body, commit_time
from revetly_core.connectors.held import HeldView, ListingView, held_lookup, key_of
from revetly_core.connectors.history_log import DELETED, first_parent_changes, hides_prior
from revetly_core.connectors.worktree_status import reported_paths
from revetly_core.fsread import Listing, ReadRefused, display_path, name_problem
from revetly_core.ids import id_key, is_ascii_id
from revetly_core.model import Artifact, HistoryEntry

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


def refused_problem(path: str, refused: ReadRefused, blob: str | None = None) -> FileProblem:
    """The problem naming a file that was not read (too large, not regular, outside, bad name)."""
    code = "outside-instance" if refused.code == "outside-root" else refused.code
    return FileProblem(SOURCE_ID, display_path(path), code, refused.detail, blob)


def parse_guarded(
    rel_path: str, data: bytes, *, config: Config, project: str, blob: str | None = None
) -> Artifact | FileProblem:
    """parse_artifact_file, where any failure at all fails only this file (code ``unreadable``)."""
    return guarded(SOURCE_ID, rel_path, blob, parse_artifact_file, rel_path, data,
                   config=config, project=project, blob=blob)


def parse_artifact_file(
    rel_path: str, data: bytes, *, config: Config, project: str, blob: str | None = None
) -> Artifact | FileProblem:
    """Parse one instance file into an Artifact, or the problem that keeps it out."""
    # imported here: a pass that re-reads no file never loads the schema's models
    from pydantic import ValidationError

    from revetly_core.markdown.criteria import parse_criteria
    from revetly_core.markdown.frontmatter import FrontmatterError, split_frontmatter
    from revetly_core.schema import Frontmatter, describe_error

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
        return problem(exc.code, str(exc))
    try:
        fm = Frontmatter.model_validate(raw)
    except ValidationError as exc:
        return problem("schema", describe_error(exc))
    if not is_ascii_id(fm.id):
        return problem("id-not-ascii", f"id {fm.id!r} holds characters that are not ASCII "
                                       "(ids are ASCII by rule); the file is skipped")
    key = id_key(fm.id)
    families = config.ids.families
    if key is None or key.sub or key.family not in families or fm.id != fm.id.strip():
        return problem(
            "unknown-family",
            f"id {fm.id!r} is not FAMILY-NUMBER of a declared family ({', '.join(families)})",
        )
    digits = re.search(r"([0-9]+)$", fm.id.strip())
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


HISTORY_TREE_CACHE = 16 << 20
"""Bytes of git objects the history walk keeps cached, large trees included: each commit's
parent tree is then the tree the walk inflated one step before."""
GIT_TREE_CACHE_LIMIT, GIT_CACHE_MAX = 4096, 256 << 20
"""libgit2's own defaults (the largest tree it caches, its whole cache), restored after."""


@contextmanager
def tree_cache(repo: Any, size: int = HISTORY_TREE_CACHE) -> Iterator[None]:
    """Cache large trees (up to ``size`` bytes in all) while walking history; afterwards the
    defaults come back and the repository's cache is emptied, so its memory does not stay."""
    import pygit2

    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, size)
    pygit2.settings.cache_max_size(size)
    try:
        yield
    finally:
        pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, GIT_TREE_CACHE_LIMIT)
        pygit2.settings.cache_max_size(GIT_CACHE_MAX)
        repo.free()


def keeps_last_good(held: HeldView, k: KnownArtifact, problems: dict[str, str | None]) -> bool:
    """A listed file that no longer parses keeps its last good artifact serving, unless another
    file now holds that artifact's id key: then that file serves the id and the stale copy goes."""
    if k.path is None or not held.listed(k.path) or k.path not in problems:
        return False
    return held.owner(key_of(k.id)) in (None, k.path)


class RepositoryConnector:
    """Reads backlog/, notes/ and records/ (or the declared folders) of the instance repo."""

    source_id = SOURCE_ID
    streams_upserts = True
    looks_up_known = True

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
        sink: Sink | None = None,
    ) -> SourceBatch:
        import pygit2

        batch = SourceBatch(source=SOURCE_ID)
        rejudge: set[str] = set()  # listed files judged again next pass (duplicates, unstorable)

        def hand_over(parsed: Artifact) -> None:
            if sink is None:
                batch.upserts.append(parsed)  # batch.upserts may be rebound below: look it up
            elif sink(parsed) is False:  # the store cannot hold it: named, and read again
                rejudge.add(parsed.source_path or parsed.id)

        try:
            repo = pygit2.Repository(str(self.root))
        except pygit2.GitError as exc:
            raise RuntimeError(f"the instance at {self.root} is not a git repository: {exc}") from exc
        head = None if repo.head_is_unborn else repo.head.target
        prior_head = None if full else cursor.get("head")
        with tree_cache(repo):  # the delta's tree diff finds the walk's last trees cached
            deletions = self._walk_history(repo, head, prior_head, batch, progress)
            view = None if full or batch.history_complete else self._delta_view(
                repo, head, cursor, set(deletions))
        if view is None:
            view = self._whole_view(repo, head)
        current = view.listing.blobs
        prior_problems: dict[str, str | None] = {} if full else dict(cursor.get("problems", {}))
        held = HeldView(held_lookup(known), known, view, prior_problems)
        changed = sorted(
            p for p, b in current.items()
            if full
            or (((k := held.live_at(p)) is None or k.blob != b)
                and prior_problems.get(p, "\0") != b)
        )
        held.begin(changed)
        # An unchanged file that broke the schema stays named (in the store) without a re-read.
        problems: dict[str, str | None] = {
            p: b for p, b in prior_problems.items()
            if not view.covers(p) or (p in current and current[p] == b)
        }
        batch.cleared_paths = set(changed) | {
            p for p, b in prior_problems.items() if view.covers(p) and current.get(p) != b
        }
        total = len(changed)
        for i, path in enumerate(changed):
            if i % 500 == 0:
                progress("read files", i, total)
            blob = current[path]
            parsed = self._parse(repo, view.listing, path, blob)
            if isinstance(parsed, FileProblem):
                batch.problems.append(parsed)
                problems[path] = blob
                continue
            key = key_of(parsed.id)
            holder = held.owner(key)
            if holder is not None and holder != path:
                first, second = sorted((holder, path))
                rejudge.add(second)
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
                    held.listed_blob(holder),
                ))
                held.demoted.add(holder)
                batch.upserts = [a for a in batch.upserts if a.source_path != holder]
            held.take(key, path, parsed.id)
            hand_over(parsed)
        progress("read files", total, total)
        batch.read_count = total

        self._deleted_records(repo, deletions, held, batch)
        removed = {r.artifact_id for r in batch.removals}
        upserted = {a.id for a in batch.upserts}
        for k in held.removal_candidates():
            if k.deleted or held.is_live(k.id) or k.id in upserted or k.id in removed:
                continue
            if keeps_last_good(held, k, problems):
                continue
            batch.removals.append(Removal(k.id, now, "found", "missing from a complete read"))
        batch.cursor = {"head": str(head) if head else None,
                        "problems": {p: b for p, b in sorted(problems.items())},
                        "worktree": view.worktree, "rejudge": sorted(rejudge)}
        return batch

    def list_files(self) -> dict[str, str]:
        """path -> blob id of every file this connector would read, as the work tree has it."""
        import pygit2

        repo = pygit2.Repository(str(self.root))
        self._last_listing = self._listing(repo, None if repo.head_is_unborn
                                           else repo.head.target)
        return dict(self._last_listing.blobs)

    def read_file(self, path: str, blob: str) -> Artifact | FileProblem:
        """Parse one listed file the way a pass would (after :meth:`list_files`)."""
        import pygit2

        repo = pygit2.Repository(str(self.root))
        listing = getattr(self, "_last_listing", None) or Listing(self.root, self._limit)
        return self._parse(repo, listing, path, blob)

    @property
    def _limit(self) -> int:
        return self.config.connectors.repository.max_file_bytes

    def _parse(self, repo: Any, listing: Listing, path: str, blob: str) -> Artifact | FileProblem:
        """One listed file read (bounded, inside the instance) and parsed; never raises."""
        try:
            data = listing.read(path, repo, blob)
        except ReadRefused as refused:
            return refused_problem(path, refused, blob)
        except Exception as exc:  # git's copy is gone or unreadable: this file only
            return FileProblem(SOURCE_ID, display_path(path), "unreadable",
                               f"the file could not be read ({type(exc).__name__}: {exc})", blob)
        return parse_guarded(path, data, config=self.config,
                             project=self.config.project_for_path(path), blob=blob)

    def _listing(self, repo: Any, head: Any) -> Listing:
        """Every wanted file as the work tree has it now (path -> blob id), read bounded."""
        return self._whole_view(repo, head).listing

    def _whole_view(self, repo: Any, head: Any) -> ListingView:
        """The whole listing: every wanted file of HEAD's tree, then what git status reports."""
        import pygit2

        listing = Listing(self.root, self._limit)
        if head is not None:
            tree = repo[head].tree
            for folder in self.folders:
                name = folder.rstrip("/")
                try:
                    entry = tree[name]
                except KeyError:
                    continue
                if entry.type == pygit2.enums.ObjectType.TREE:
                    self._list_tree(repo, repo[entry.id], name, listing)
        status = self._status_paths(repo)
        for path in status:
            listing.add_worktree(path)
        return ListingView(listing, sorted(status))

    def _status_paths(self, repo: Any) -> list[str]:
        """The wanted files git status reports changed, staged or untracked (not ignored)."""
        return [path for path in reported_paths(repo) if self._wanted(path)]

    def _delta_view(
        self, repo: Any, head: Any, cursor: dict[str, Any], deletions: set[str]
    ) -> ListingView | None:
        """The listing of only the files that can differ from what the last read listed: those
        HEAD's tree changed since the cursor's head, those git status reports now or reported
        then, those judged again every pass, and those history deleted. None when the cursor
        cannot say (an older cursor, no head) or a name is not UTF-8: then the whole listing."""
        import pygit2

        prior, worktree, rejudge = (cursor.get(k) for k in ("head", "worktree", "rejudge"))
        if head is None or not isinstance(prior, str) or not isinstance(worktree, list) \
                or not isinstance(rejudge, list):
            return None
        scope = {p for p in (*worktree, *rejudge) if isinstance(p, str)} | deletions
        tree = repo[head].tree
        if prior != str(head):
            for delta in repo.diff(repo[prior].tree, tree).deltas:
                scope.update((delta.old_file.path, delta.new_file.path))
        status = self._status_paths(repo)
        scope.update(status)
        scope = {p for p in scope if self._wanted(p)}
        if any(name_problem(p) is not None for p in scope):
            return None
        listing = Listing(self.root, self._limit)
        for path in sorted(scope):
            try:
                entry = tree[path]
            except KeyError:
                continue
            if entry.type != pygit2.enums.ObjectType.TREE:
                listing.add_tree_entry(path, str(entry.id))
        for path in status:
            listing.add_worktree(path)
        return ListingView(listing, sorted(status), scope)

    def _list_tree(self, repo: Any, tree: Any, prefix: str, out: Listing) -> None:
        import pygit2

        for entry in tree:
            path = f"{prefix}/{entry.name}"
            if entry.type == pygit2.enums.ObjectType.TREE:
                self._list_tree(repo, repo[entry.id], path, out)
            elif self._wanted(path):
                out.add_tree_entry(path, str(entry.id))

    def _walk_history(
        self, repo: Any, head: Any, prior_head: str | None, batch: SourceBatch, progress: Progress
    ) -> dict[str, _Deletion]:
        """Add a history entry per commit that touched a wanted file; return paths deleted."""
        import pygit2

        deletions: dict[str, _Deletion] = {}
        if head is None:
            return deletions
        walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
        if hides_prior(repo, walker, str(head), prior_head):
            batch.history_complete = False
        commits = list(walker)
        walk = first_parent_changes(repo, commits, wanted=self._wanted)
        for i, (commit, changes) in enumerate(walk):
            if i % 100 == 0:
                progress("read history", i, len(commits))
            at = commit_time(commit)
            subject, _ = commit_subject_body(commit.message)
            revision, author = str(commit.id), commit.author.name  # one copy per commit
            for change in changes:
                path = change.path
                if name_problem(path) is not None:
                    continue  # a name that is not UTF-8 is named by the listing, never stored
                batch.history.append(HistoryEntry(
                    artifact_id=path, at=at, change=change.change, revision=revision,
                    author=author, summary=subject,
                ))
                if change.change == DELETED:
                    deletions[path] = _Deletion(at, revision, change.old_blob)
                else:
                    deletions.pop(path, None)
        progress("read history", len(commits), len(commits))
        return deletions

    def _deleted_records(
        self, repo: Any, deletions: dict[str, _Deletion], held: HeldView, batch: SourceBatch
    ) -> None:
        """A file a commit removed becomes a deleted artifact dated by that commit.

        An artifact the store holds at that path is marked deleted without reading the file
        again. Only a file this store never held (a full read of old history) is read, once,
        bounded and guarded, to record what it was; if it cannot be read it leaves nothing.
        """
        for path in sorted(deletions):
            if held.listed(path):
                continue
            d = deletions[path]
            note = f"removed by commit {d.revision[:12]}"
            prior = held.any_at(path)
            if prior is not None:
                if not held.is_live(prior.id) and prior.deleted_clock != "source-declared":
                    batch.removals.append(Removal(prior.id, d.at, "source-declared", note))
                continue
            parsed = self._parse_deleted(repo, path, d.blob)
            if parsed is None or held.is_live(parsed.id) or parsed.id in held.known:
                continue
            parsed.deleted = True
            parsed.deleted_at = d.at
            parsed.deleted_clock = "source-declared"
            parsed.deleted_note = note
            batch.upserts.append(parsed)

    def _parse_deleted(self, repo: Any, path: str, blob: str) -> Artifact | None:
        """The artifact a deleted blob held, or None when it cannot be read (nothing to name)."""
        from revetly_core.fsread import read_blob

        try:
            data = read_blob(repo, blob, self._limit)
        except Exception:  # too large, or gone from the object store: it leaves nothing
            return None
        parsed = parse_guarded(path, data, config=self.config,
                               project=self.config.project_for_path(path), blob=blob)
        return None if isinstance(parsed, FileProblem) else parsed
