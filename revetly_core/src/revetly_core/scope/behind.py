"""get_scope(question='binding', path=...): which stories and decisions are behind a file.

The path's history is read from each declared commits repository at query time (renames
followed). Each commit is resolved two ways: the ids its message names, and the delivery
records whose implemented_by names it. Stories are weighed over the commits; decisions are
the notes the leading stories and their delivery records cite or are cited by.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from revetly_core.config import CommitsConnector, Config
from revetly_core.ids import IdFinder, IdKey
from revetly_core.model import WORK_ITEM_TYPES
from revetly_core.scope.arguments import invalid
from revetly_core.scope.binding import artifacts_by_id
from revetly_core.scope.gather import is_statement, neighbours
from revetly_core.scope.path_history import PathCommit, PathHistoryCache, brought_in
from revetly_core.store.protocols import Store

SUBJECT_WEIGHT = 1.0
BODY_WEIGHT = 0.25
"""An id only in the prose (or a diagram) of a commit body: a quarter of a subject or trailer
(measured on a real corpus: ½ and 1 rank worse; decisions/0012)."""
DELIVERY_WEIGHT = 1.0
FIRST_STORY_WEIGHT = 3.0
STORIES_LISTED = 5
DECISIONS_LISTED = 5
LEADING_FOR_BINDING = 3
NO_REPOSITORIES = "this instance declares no commits repository ([[connectors.commits]])"
NO_HISTORY = "no declared repository has history for this path"


@dataclass(frozen=True)
class RepoPath:
    """A declared repository and the path as written relative to its root."""

    name: str
    folder: Path
    path: str


def repo_folder(root: Path, settings: CommitsConnector) -> Path:
    """A declared repository's folder, resolved against the instance root."""
    folder = Path(settings.path).expanduser()
    return folder if folder.is_absolute() else (root / folder).resolve()


def _inside(rel: str) -> bool:
    return rel not in ("", ".") and not rel.startswith("../") and rel != ".."


def resolve_path(config: Config, root: Path, path: str) -> list[RepoPath]:
    """The path in each repository it can name: relative to the root, or prefixed with the
    repository's name or declared path; an absolute path names the repository holding it.
    A path no declared repository can hold is refused."""
    out: list[RepoPath] = []
    for settings in config.connectors.commits:
        folder = repo_folder(root, settings)
        candidates: list[str] = []
        if os.path.isabs(path):
            rel = posixpath.normpath(Path(os.path.relpath(path, folder)).as_posix())
            candidates.append(rel)
        else:
            written = posixpath.normpath(path.replace("\\", "/"))
            for prefix in (settings.name, posixpath.normpath(settings.path)):
                if written.startswith(prefix.rstrip("/") + "/"):
                    candidates.append(written[len(prefix.rstrip("/")) + 1:])
            candidates.append(written)
        inside = [c for c in candidates if _inside(c)]
        if inside:
            out.append(RepoPath(settings.name, folder, inside[0]))
    if not out:
        raise invalid("path", f"{path!r} lies outside every declared repository",
                      "pass a path inside a [[connectors.commits]] repository, relative to its "
                      "root or prefixed with its name", "path-outside-repositories")
    return out


@dataclass
class StoryWeight:
    """What the path's history says about one story."""

    artifact_id: str
    weight: float = 0.0
    commits: int = 0
    last: str = ""
    subject: int = 0
    body: int = 0
    delivered: int = 0
    records: set[str] = field(default_factory=set)
    brought_in: str | None = None


_TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*(?: [A-Za-z][A-Za-z0-9-]*)?:\s+\S")


def trailer_block(body: str) -> tuple[str, str]:
    """(prose, trailers) of a commit body: its last paragraph is the trailer block when every
    line of it reads ``Key: value`` (``Refs: BACK-12``, ``Co-authored-by: ...``)."""
    text = body.strip()
    head, sep, last = text.rpartition("\n\n")
    lines = [ln for ln in last.splitlines() if ln.strip()]
    if lines and all(_TRAILER.match(ln) for ln in lines):
        return (head if sep else ""), last
    return text, ""


def story_finder(config: Config) -> IdFinder:
    """The id finder the path walk reads commit messages with: every declared family, alias
    (``TASK`` for ``BACK``) and dotted sub-task family, as the read pass links them."""
    return IdFinder(config.ids.families, aliases=config.id_aliases,
                    dotted=config.dotted_families)


def named_in(finder: IdFinder, c: PathCommit) -> tuple[list[IdKey], list[IdKey]]:
    """(strong, weak) ids a commit names: strong in its subject or trailers, weak only in the
    prose (or a diagram) of its body."""
    prose, trailers = trailer_block(c.body)
    strong = list(dict.fromkeys(finder.keys(c.subject) + finder.keys(trailers)))
    weak = [k for k in finder.keys(prose) if k not in strong]
    return strong, weak


def weigh_commits(
    store: Store, config: Config, commits: list[PathCommit],
    added_by: frozenset[str] = frozenset(),
) -> dict[str, StoryWeight]:
    """Subject or trailer 1, body prose ¼, delivery record +1 per commit; +3 for each story
    the commit that added the file (``added_by``) names in its subject or trailers."""
    finder = story_finder(config)
    keys_in: list[tuple[list[IdKey], list[IdKey]]] = []
    wanted: set[str] = set()
    for c in commits:
        strong, weak = named_in(finder, c)
        keys_in.append((strong, weak))
        wanted.update(k.text() for k in strong + weak)
    held = store.ids_for_keys(sorted(wanted))
    shas = [c.sha for c in commits]
    delivered: dict[str, list[tuple[str, str]]] = {}
    for record, sha, story in store.delivering_records(shas):
        delivered.setdefault(sha, []).append((record, story))
    ids = sorted(set(held.values()) | {s for v in delivered.values() for _, s in v})
    arts = artifacts_by_id(store, ids)
    stories = {i for i, a in arts.items() if a.type in WORK_ITEM_TYPES and not a.deleted}

    weights: dict[str, StoryWeight] = {}
    for c, (strong, weak) in zip(commits, keys_in, strict=True):
        in_subject = [held[t] for t in (k.text() for k in strong) if t in held]
        in_body = [held[t] for t in (k.text() for k in weak) if t in held]
        in_subject = [s for s in dict.fromkeys(in_subject) if s in stories]
        in_body = [s for s in dict.fromkeys(in_body) if s in stories and s not in in_subject]
        touched: set[str] = set()
        for sid in in_subject:
            w = weights.setdefault(sid, StoryWeight(sid))
            w.weight += SUBJECT_WEIGHT
            w.subject += 1
            touched.add(sid)
            if c.sha in added_by and w.brought_in is None:
                w.weight += FIRST_STORY_WEIGHT
                w.brought_in = c.sha
        for sid in in_body:
            w = weights.setdefault(sid, StoryWeight(sid))
            w.weight += BODY_WEIGHT
            w.body += 1
            touched.add(sid)
        for record, sid in delivered.get(c.sha, []):
            if sid not in stories:
                continue
            w = weights.setdefault(sid, StoryWeight(sid))
            w.weight += DELIVERY_WEIGHT
            w.delivered += 1
            w.records.add(record)
            touched.add(sid)
        for sid in touched:
            w = weights[sid]
            w.commits += 1
            w.last = max(w.last, c.at)
    return weights


def rank_stories(weights: dict[str, StoryWeight]) -> list[StoryWeight]:
    """Heaviest first; a tie goes to the more recent commit, then the lower id."""
    by_id = sorted(weights.values(), key=lambda w: w.artifact_id)
    newest = sorted(by_id, key=lambda w: w.last, reverse=True)
    return sorted(newest, key=lambda w: -w.weight)


def story_why(w: StoryWeight) -> str:
    """One line saying why a story is behind the file."""
    parts = []
    if w.subject:
        parts.append(f"named in {w.subject} commit subject{'s' if w.subject > 1 else ''} "
                     "or trailers")
    if w.body:
        parts.append(f"named only in the prose of {w.body} commit bod"
                     f"{'ies' if w.body > 1 else 'y'}")
    if w.delivered:
        parts.append(f"delivered by {', '.join(sorted(w.records))}")
    if w.brought_in:
        parts.append(f"the commit that brought the file in names it ({w.brought_in[:7]})")
    return "; ".join(parts)


def names_file(text: str, path: str) -> bool:
    """True when prose names the file: its path, its file name, or its dotted module."""
    base = posixpath.basename(path)
    module = re.sub(r"\.py$", "", path).replace("/", ".")
    tail = module.split(".", 1)[-1] if module.startswith("src.") else module
    return any(p and p in text for p in (path, base, tail if "." in tail else ""))


def rank_decisions(
    store: Store, graph: Any, leading: list[str], paths: list[str]
) -> list[dict[str, Any]]:
    """Notes the leading stories and their delivery records cite or are cited by."""
    linked: dict[str, set[str]] = {}
    for sid in leading:
        records = sorted(src for src, _, d in graph.in_edges(sid, data=True)
                         if d.get("relation") == "delivers")
        reachers = [sid, *records]
        for node in reachers:
            for far, _method in neighbours(graph, node):
                if is_statement(graph, far):
                    linked.setdefault(far, set()).add(sid)
    if not linked:
        return []
    arts = artifacts_by_id(store, sorted(linked))
    place = {sid: i for i, sid in enumerate(leading)}
    rows = []
    for nid, via in linked.items():
        a = arts.get(nid)
        if a is None:
            continue
        naming = any(names_file(a.title + "\n" + a.body, p) for p in paths)
        rows.append((not naming, -len(via), min(place[s] for s in via), a,
                     sorted(via, key=lambda s: place[s])))
    by_id = sorted(rows, key=lambda r: r[3].id)
    newest = sorted(by_id, key=lambda r: r[3].created_at or "", reverse=True)
    ordered = sorted(newest, key=lambda r: r[:3])
    out = []
    for not_naming, _n, _p, a, cited in ordered[:DECISIONS_LISTED]:
        why = ("names the file; " if not not_naming else "") + f"linked to {', '.join(cited)}"
        out.append({"artifact_id": a.id, "title": a.title, "kind": a.type, "why": why})
    return out


@dataclass
class PathWalk:
    """One path's history across the declared repositories, and its stories ranked."""

    repos: list[dict[str, Any]]
    commits: list[PathCommit]
    ranked: list[StoryWeight]


def walk_path(config: Config, store: Store, root: Path, path: str,
              cache: PathHistoryCache) -> PathWalk:
    """The path's commits in every repository that can hold it (renames followed), newest
    first, and the stories they name ranked heaviest first: what binding and the authoring
    bundle read about a file."""
    repos = []
    commits: list[PathCommit] = []
    added_by: set[str] = set()
    for rp in resolve_path(config, root, path):
        history = cache.history(rp.folder, rp.path)
        if not history:
            continue
        first = brought_in(history)
        if first is not None:
            added_by.add(first.sha)
        names = sorted({c.path for c in history if c.path != rp.path})
        entry: dict[str, Any] = {"repository": rp.name, "path": rp.path,
                                 "commits": len(history), "first": history[-1].at,
                                 "last": history[0].at}
        if names:
            entry["renamed_from"] = names
        gaps = [c.sha for c in history if c.unread]
        if gaps:
            entry["partial"] = True
            entry["gaps"] = [f"{sha}: git cannot read the blobs its rename check needs; the "
                             "path is taken as added there" for sha in gaps]
        repos.append(entry)
        commits.extend(history)
    commits.sort(key=lambda c: (c.at, c.sha), reverse=True)
    ranked = rank_stories(weigh_commits(store, config, commits, frozenset(added_by))) \
        if commits else []
    return PathWalk(repos, commits, ranked)


def stories_listed(limit: int | None) -> int:
    """How many stories a path binding lists: five when the caller gives no limit (spec 000's
    default), else up to the limit the caller gave."""
    return STORIES_LISTED if limit is None else limit


def behind_path(
    config: Config, store: Store, graph: Any, root: Path, path: str, cache: PathHistoryCache,
    listed: int = STORIES_LISTED,
) -> tuple[dict[str, Any], list[str]]:
    """The path block, behind (up to ``listed`` stories, then the decisions of the first five
    of them), more_ranked (or an empty behind with a reason), and the ids of the leading
    stories the binding statements are gathered over."""
    if not config.connectors.commits:
        return {"path": {"path": path, "repos": []}, "behind": [], "reason": NO_REPOSITORIES}, []
    walk = walk_path(config, store, root, path, cache)
    commits, ranked = walk.commits, walk.ranked
    block: dict[str, Any] = {"path": {"path": path, "repos": walk.repos}}
    if not commits:
        block["behind"] = []
        block["reason"] = NO_HISTORY
        return block, []
    leading = ranked[:listed]
    arts = artifacts_by_id(store, [w.artifact_id for w in leading])
    behind: list[dict[str, Any]] = []
    for w in leading:
        a = arts[w.artifact_id]
        behind.append({"artifact_id": a.id, "title": a.title, "kind": a.type,
                       "why": story_why(w), "commits": w.commits, "last": w.last,
                       "weight": w.weight})
    paths = sorted({c.path for c in commits})
    citing = [w.artifact_id for w in leading[:STORIES_LISTED]]
    behind.extend(rank_decisions(store, graph, citing, paths))
    block["behind"] = behind
    if not behind:
        block["reason"] = "the commits touching this path name no story held in CONTEXT"
    block["more_ranked"] = max(0, len(ranked) - len(leading))
    return block, [w.artifact_id for w in ranked[:LEADING_FOR_BINDING]]
