"""Which adapter writes back to an item: chosen by the source that holds it.

A source id is ``<kind>/<name>`` (``github/app``); ``WRITERS`` maps a kind to the factory
that builds its adapter from the declared settings of that name. A source whose kind has no
row (or whose factory answers None) has no write adapter: ``set_status`` records a delivery
alone there, as before. An adapter is added with one row here and one module beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from revetly_core.config import Config
from revetly_core.model import Artifact
from revetly_core.writeback.protocol import RemoteItem, TrackerWriter

WriterFactory = Callable[[Config, str, Mapping[str, str], Path], "TrackerWriter | None"]
"""(config, the source's declared name, the environment, the instance root) -> its adapter,
or None."""


def github_writer(config: Config, name: str, env: Mapping[str, str],
                  root: Path) -> TrackerWriter | None:
    """The GitHub adapter of ``[[connectors.github]]`` ``name`` (the root is not needed)."""
    from revetly_core.writeback.github import GitHubWriter

    for settings in config.connectors.github:
        if settings.name == name:
            return GitHubWriter(settings, environ=env)
    return None


def backlog_md_writer(config: Config, name: str, env: Mapping[str, str],
                      root: Path) -> TrackerWriter | None:
    """The Backlog.md adapter of ``[[connectors.backlog-md]]`` ``name``, when it declares
    ``write_back = true`` (else None: the project is only read)."""
    from revetly_core.writeback.backlog_md import backlog_md_target

    target = backlog_md_target(config, root, name)
    if target is None:
        return None
    from revetly_core.writeback.backlog_md_writer import BacklogMdWriter

    return BacklogMdWriter(target)


def azure_devops_writer(config: Config, name: str, env: Mapping[str, str],
                        root: Path) -> TrackerWriter | None:
    """The Azure DevOps adapter of ``[[connectors.azure-devops]]`` ``name`` (the root is not
    needed)."""
    from revetly_core.writeback.azure_devops import AzureDevOpsWriter

    for settings in config.connectors.azure_devops:
        if settings.name == name:
            return AzureDevOpsWriter(settings, environ=env)
    return None


def todoist_writer(config: Config, name: str, env: Mapping[str, str],
                   root: Path) -> TrackerWriter | None:
    """The Todoist adapter of ``[[connectors.todoist]]`` ``name`` (the root is not needed)."""
    from revetly_core.writeback.todoist import TodoistWriter

    for settings in config.connectors.todoist:
        if settings.name == name:
            return TodoistWriter(settings, environ=env)
    return None


WRITERS: dict[str, WriterFactory] = {
    "github": github_writer,
    "backlog-md": backlog_md_writer,
    "azure-devops": azure_devops_writer,
    "todoist": todoist_writer,
}


def source_kind(source: str) -> tuple[str, str]:
    """(kind, name) of a source id: ``github/app`` -> ("github", "app")."""
    kind, _, name = source.partition("/")
    return kind, name


def writer_for(config: Config, source: str, env: Mapping[str, str],
               writers: Mapping[str, WriterFactory] | None = None, *,
               root: Path) -> TrackerWriter | None:
    """The adapter that writes back to ``source``, or None when it has none (``root``: the
    instance, which a source's relative path is read from)."""
    kind, name = source_kind(source)
    factory = (WRITERS if writers is None else writers).get(kind)
    return factory(config, name, env, root) if factory is not None and name else None


def native_id_of(artifact: Artifact) -> str:
    """The tracker's own id of an item: its ``native_id`` or ``number`` metadata, else the
    number after the id's family (``GH-12`` -> ``12``)."""
    meta: Mapping[str, Any] = artifact.metadata or {}
    for key in ("native_id", "number"):
        if meta.get(key) not in (None, ""):
            return str(meta[key])
    return artifact.id.rsplit("-", 1)[-1]


def remote_item(artifact: Artifact) -> RemoteItem:
    """The item a write goes to, from what CONTEXT holds of it."""
    meta: Mapping[str, Any] = artifact.metadata or {}
    native = meta.get("native_type")
    return RemoteItem(artifact.id, artifact.source, native_id_of(artifact), artifact.type,
                      native if isinstance(native, str) else None, artifact.status, dict(meta))
