"""What every write needs from its engine: paths, configuration, principal, store, captures."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from revetly_core.config import Config
from revetly_core.instance.layout import InstancePaths
from revetly_core.model import WORK_ITEM_TYPES, Artifact
from revetly_core.refusal import Refusal
from revetly_core.store.db import Store
from revetly_core.writes.capture import CaptureRunner
from revetly_core.writes.instance_files import FOLDER_OF_TYPE, locate_file
from revetly_core.writes.limits import check_artifact_id
from revetly_core.writes.principal import Principal, resolve_local_principal
from revetly_core.writes.reviews import ReviewStore


@dataclass
class WriteContext:
    """One engine's write side: built once per Engine and reused by each write."""

    root: Path
    config: Config
    captures: CaptureRunner
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)

    @property
    def paths(self) -> InstancePaths:
        return InstancePaths(self.root)

    @property
    def reviews(self) -> ReviewStore:
        return ReviewStore(self.root, self.paths.state)

    def store(self) -> Store | None:
        """CONTEXT read-only, or None before the first pass."""
        return Store(self.paths.db, readonly=True) if self.paths.db.exists() else None

    def principal(self, given: Principal | None, *, reviewer: bool = False) -> Principal:
        """The principal passed in (served calls), else the local one."""
        if given is not None:
            return given
        return resolve_local_principal(self.root, env=self.env, reviewer=reviewer)

    def project(self, project: str | None) -> str:
        """The project a write lands in: the one named (declared), else the default."""
        if project is None:
            return self.config.default_project
        if project not in self.config.project_names:
            raise Refusal("unknown-project", f"project {project!r} is not declared",
                          f"name one of: {', '.join(self.config.project_names)}",
                          {"project": project, "wrote": False})
        return project

    def folder_for(self, artifact_type: str, project: str) -> str:
        """Where a new file of a type goes: the project's own folder under it, else the default."""
        base = FOLDER_OF_TYPE[artifact_type]
        declared = self.config.projects.get(project)
        if declared is not None:
            for p in declared.paths:
                clean = p.strip("/")
                if clean == base or clean.startswith(base + "/"):
                    return clean
        return base

    def folders(self) -> tuple[str, ...]:
        return tuple(p.strip("/") for p in self.config.connectors.repository.paths)

    def stored(self, artifact_id: str) -> Artifact | None:
        """The artifact CONTEXT holds under an id (any padding or case), or None."""
        from revetly_core.ids import id_key

        store = self.store()
        if store is None:
            return None
        try:
            a = store.get(artifact_id)
            if a is None:
                key = id_key(artifact_id)
                if key is not None:
                    hit = store.ids_for_keys([f"{key.family}:{key.number}"])
                    for held in hit.values():
                        a = store.get(held)
            return a
        finally:
            store.close()

    def live_work_item_file(self, artifact_id: str, field_name: str = "artifact_id") -> Path:
        """The file of a live work item in the instance repo; anything else is refused by name."""
        aid = check_artifact_id(artifact_id, field_name)
        held = self.stored(aid)
        if held is not None and (held.deleted or held.type not in WORK_ITEM_TYPES):
            what = "deleted" if held.deleted else f"a {held.type}, not a work item"
            raise Refusal("not-a-live-work-item", f"{aid} is {what}",
                          "name a live work item (list_backlog shows them)",
                          {"id": aid, "wrote": False})
        if held is not None and held.source != "repository":
            raise Refusal("not-in-this-store", f"{aid} is held by {held.source}, which this "
                          "instance does not write to", "name a work item of the instance repo",
                          {"id": aid, "wrote": False})
        hint = held.source_path if held is not None else None
        path = locate_file(self.root, aid, hint, self.folders(), scan=held is not None)
        if path is None:
            raise Refusal("not-a-live-work-item", f"{aid} is not a live work item here",
                          "name a live work item (list_backlog shows them)",
                          {"id": aid, "wrote": False})
        return path
