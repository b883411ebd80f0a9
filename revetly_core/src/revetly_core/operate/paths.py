"""A file named on the command line, as the scope reads take it: a path in a code repository."""

from __future__ import annotations

from pathlib import Path

from revetly_core.config import Config


def repository_path(root: Path, config: Config, given: str, cwd: Path) -> str:
    """``given`` resolved from ``cwd``: a file inside a declared code repository becomes its
    path in that repository; anything else is passed on as written (a repository path)."""
    from revetly_core.connectors.commits import CommitsConnector

    candidate = (cwd / given).resolve()
    if not candidate.exists():
        return given
    for settings in config.connectors.commits:
        repo = CommitsConnector(root, settings, config.default_project).path.resolve()
        if candidate == repo or repo in candidate.parents:
            return candidate.relative_to(repo).as_posix()
    return given
