"""The sources a team already keeps in another tool's format, as declared in revetly.toml."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from revetly_core.answers.maintenance import CheckProblem
from revetly_core.config import Config
from revetly_core.connectors.adr import AdrConnector
from revetly_core.connectors.azure_devops import AzureDevOpsConnector, azure_devops_source_id
from revetly_core.connectors.backlog_md import BacklogMdConnector
from revetly_core.connectors.github import GitHubConnector, github_source_id
from revetly_core.connectors.todoist import TodoistConnector, todoist_source_id

if TYPE_CHECKING:
    from revetly_core.store.protocols import Store

TrackerSource = GitHubConnector | AzureDevOpsConnector | TodoistConnector
DeclaredSource = BacklogMdConnector | AdrConnector | TrackerSource


def folder_sources(root: Path, config: Config) -> list[BacklogMdConnector | AdrConnector]:
    """One connector per `[[connectors.backlog-md]]` and `[[connectors.adr]]` entry."""
    out: list[BacklogMdConnector | AdrConnector] = []
    out.extend(BacklogMdConnector(root, s, config) for s in config.connectors.backlog_md)
    out.extend(AdrConnector(root, s, config) for s in config.connectors.adr)
    return out


def tracker_sources(config: Config) -> list[TrackerSource]:
    """One connector per `[[connectors.github]]` entry, then per `[[connectors.azure-devops]]`,
    then per `[[connectors.todoist]]`."""
    out: list[TrackerSource] = [GitHubConnector(s, config) for s in config.connectors.github]
    out.extend(AzureDevOpsConnector(s, config) for s in config.connectors.azure_devops)
    out.extend(TodoistConnector(s, config) for s in config.connectors.todoist)
    return out


def declared_sources(root: Path, config: Config) -> list[DeclaredSource]:
    """Every declared source the read pass reads after the instance and its commits: the
    folder sources, then the trackers."""
    return [*folder_sources(root, config), *tracker_sources(config)]


def check_declared_sources(root: Path, config: Config,
                           store: Store | None = None) -> tuple[int, list[CheckProblem]]:
    """(files read, problems) of every declared source.

    A folder source is read in full in memory: each problem names the source and the file;
    a file read leniently is named with what was assumed (code ``assumed``), a skipped file
    with why, and a source that cannot be read at all is one problem naming it. A tracker is
    not called: its items and problems are those the last pass stored (tracker_problems).
    """
    files = 0
    problems: list[CheckProblem] = []
    for connector in folder_sources(root, config):
        try:
            count, found = connector.check()
        except RuntimeError as exc:
            problems.append({"source": connector.source_id, "path": connector.source_id,
                             "code": "source-unreadable", "detail": str(exc)})
            continue
        files += count
        problems.extend(p.payload() for p in found)
    if store is not None:
        held, stored = tracker_problems(config, store)
        files += held
        problems.extend(stored)
    return files, problems


def tracker_problems(config: Config, store: Store) -> tuple[int, list[CheckProblem]]:
    """(items held, problems) of every tracker source as its last pass stored them."""
    ids = {github_source_id(s.name) for s in config.connectors.github}
    ids |= {azure_devops_source_id(s.name) for s in config.connectors.azure_devops}
    ids |= {todoist_source_id(s.name) for s in config.connectors.todoist}
    held = sum(len(store.known(source)) for source in sorted(ids))
    out: list[CheckProblem] = []
    for row in store.problems():
        if row["source"] in ids:
            problem: CheckProblem = {"source": row["source"], "path": row["path"],
                                     "code": row["code"], "detail": row["detail"]}
            if row["severity"] is not None:
                problem["severity"] = row["severity"]
            out.append(problem)
    return held, out
