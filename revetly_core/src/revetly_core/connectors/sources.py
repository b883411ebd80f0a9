"""The sources a team already keeps in another tool's format, as declared in revetly.toml."""

from __future__ import annotations

from pathlib import Path

from revetly_core.answers.maintenance import CheckProblem
from revetly_core.config import Config
from revetly_core.connectors.adr import AdrConnector
from revetly_core.connectors.backlog_md import BacklogMdConnector


def declared_sources(root: Path, config: Config) -> list[BacklogMdConnector | AdrConnector]:
    """One connector per `[[connectors.backlog-md]]` and `[[connectors.adr]]` entry."""
    out: list[BacklogMdConnector | AdrConnector] = []
    out.extend(BacklogMdConnector(root, s, config) for s in config.connectors.backlog_md)
    out.extend(AdrConnector(root, s, config) for s in config.connectors.adr)
    return out


def check_declared_sources(root: Path, config: Config) -> tuple[int, list[CheckProblem]]:
    """(files read, problems) of every backlog-md and adr source, read in full in memory.

    Each problem names the source and the file; a file read leniently is named with what was
    assumed (code ``assumed``), a skipped file with why. A source that cannot be read at all
    is one problem naming it.
    """
    files = 0
    problems: list[CheckProblem] = []
    for connector in declared_sources(root, config):
        try:
            count, found = connector.check()
        except RuntimeError as exc:
            problems.append({"source": connector.source_id, "path": connector.source_id,
                             "code": "source-unreadable", "detail": str(exc)})
            continue
        files += count
        problems.extend(p.payload() for p in found)
    return files, problems
