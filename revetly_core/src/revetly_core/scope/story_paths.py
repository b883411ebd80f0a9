"""The code paths behind a few stories: the path walk read the other way round.

The path walk weighs the commits touching a file by the stories they name; here the commits
naming the stories are weighed by the same rules (subject or trailers 1, body prose ¼) and
their files summed, so the authoring bundle can say where the nearest stories' code lives.
Files of the declared Backlog.md folders are the backlog itself, not code, and are left out.
Nothing is stored: the file lists are the ones the commits source read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from revetly_core.config import Config
from revetly_core.ids import id_key
from revetly_core.model import Artifact
from revetly_core.scope.behind import BODY_WEIGHT, SUBJECT_WEIGHT, named_in, story_finder
from revetly_core.scope.path_history import PathCommit
from revetly_core.store.protocols import Store

PATHS_LISTED = 10
COMMITS_PER_STORY = 200
"""At most this many of the newest commits naming one story are read for its paths."""


@dataclass
class PathWeight:
    """What the stories' commits say about one file."""

    path: str
    repository: str
    weight: float = 0.0
    commits: set[str] = field(default_factory=set)
    stories: set[str] = field(default_factory=set)
    last: str = ""


def backlog_folders(config: Config) -> tuple[str, ...]:
    """The folder prefixes of the declared Backlog.md projects (their files are not code)."""
    return tuple((s.folder or "backlog").strip("/") + "/" for s in config.connectors.backlog_md)


def naming_commits_of(store: Store, story_ids: list[str]) -> dict[str, list[Artifact]]:
    """story id -> the live commits linked to it (newest first, COMMITS_PER_STORY at most)."""
    return {sid: store.newest_commits_naming(sid, COMMITS_PER_STORY) for sid in story_ids}


def file_share(gain: float, files: int) -> float:
    """What one commit adds to each file it touched: its gain over the square root of how many
    files it touched (a sweeping commit says less about each file than a focused one)."""
    return gain / math.sqrt(max(1, files))


def weigh_paths(config: Config, store: Store, story_ids: list[str]) -> list[PathWeight]:
    """The files the stories' commits touched, heaviest first (then more commits, newest, path):
    a commit naming a story in its subject or trailers gains 1, in body prose ¼, shared out
    over its files by file_share."""
    finder = story_finder(config)
    wanted = {k.text(): sid for sid in story_ids if (k := id_key(sid)) is not None}
    skip = backlog_folders(config)
    weights: dict[tuple[str, str], PathWeight] = {}
    for sid, commits in naming_commits_of(store, story_ids).items():
        for c in commits:
            strong, weak = named_in(finder, PathCommit(c.id, c.created_at or "", c.title,
                                                       c.body, ""))
            if any(wanted.get(k.text()) == sid for k in strong):
                gain = SUBJECT_WEIGHT
            elif any(wanted.get(k.text()) == sid for k in weak):
                gain = BODY_WEIGHT
            else:
                continue  # linked by another spelling the finder does not read: not counted
            repo = str(c.metadata.get("repository", ""))
            files = list(c.metadata.get("files", []))
            share = file_share(gain, len(files) + int(c.metadata.get("files_more", 0)))
            for path in files:
                if path.startswith(skip):
                    continue
                w = weights.setdefault((repo, path), PathWeight(path, repo))
                if c.id not in w.commits:
                    w.weight += share
                    w.commits.add(c.id)
                w.stories.add(sid)
                w.last = max(w.last, c.created_at or "")
    by_path = sorted(weights.values(), key=lambda w: (w.repository, w.path))
    newest = sorted(by_path, key=lambda w: w.last, reverse=True)
    return sorted(newest, key=lambda w: (-round(w.weight, 9), -len(w.commits)))


def paths_block(config: Config, store: Store, story_ids: list[str],
                listed: int = PATHS_LISTED) -> dict[str, Any]:
    """The bundle's paths: the leading files behind the stories, each with its weight, how
    many commits, which stories and the newest commit's date; total counts them all."""
    ranked = weigh_paths(config, store, story_ids) if config.connectors.commits else []
    rows = [{"path": w.path, "repository": w.repository, "weight": round(w.weight, 3),
             "commits": len(w.commits), "stories": sorted(w.stories), "last": w.last}
            for w in ranked[:listed]]
    out: dict[str, Any] = {"listed": rows, "total": len(ranked)}
    if not config.connectors.commits:
        out["reason"] = "this instance declares no commits repository ([[connectors.commits]])"
    elif not ranked:
        out["reason"] = "no commit naming these stories touched a file outside the backlog"
    return out
