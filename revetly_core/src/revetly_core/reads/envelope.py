"""What every read carries besides its answer: project, freshness, history, context_health."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.answers.common import Envelope
    from revetly_core.config import Config
    from revetly_core.store.protocols import Store

DELETED_VALUES = ("include", "only")


def check_deleted(deleted: str | None) -> str | None:
    """The deleted argument: absent, 'include' or 'only'; anything else is refused by name."""
    if deleted in (None, ""):
        return None
    if deleted not in DELETED_VALUES:
        raise Refusal(
            "invalid-argument", f"deleted={deleted!r} is not a value this read takes",
            "omit deleted for live work only, or pass 'include' or 'only'",
            {"argument": "deleted"},
        )
    return deleted


@dataclass(frozen=True)
class ProjectScope:
    """Which project answers a read, and which projects' artifacts it may reach."""

    name: str
    reach: tuple[str, ...]
    multi: bool


def resolve_project(config: Config, project: str | None, *, with_imports: bool) -> ProjectScope:
    """The named project (or the default) and, for a question, what it imports."""
    names = config.project_names
    name = project or config.default_project
    if name not in names:
        raise Refusal(
            "unknown-project", f"project {name!r} is not declared on this instance",
            f"name one of: {', '.join(names)}", {"argument": "project"},
        )
    reach = [name]
    if with_imports and name in config.projects:
        for imp in config.projects[name].imports:
            if imp not in reach:
                reach.append(imp)
    return ProjectScope(name, tuple(reach), multi=len(names) > 1)


def envelope(config: Config, store: Store, scope: ProjectScope) -> Envelope:
    """freshness always; history where a source has a floor; context_health when a pass failed."""
    from revetly_core.reads.health import freshness, history_block, watching

    sources = [
        {"source": r["source"], "last_read_at": r["last_read_at"], "floor": r["floor"],
         "gaps": json.loads(r["gaps"]), "partial": bool(r["partial"])}
        for r in store.sources() if r["project"] in (None, scope.name) or not scope.multi
    ]
    out: Envelope = {}
    if scope.multi:
        out["project"] = scope.name
    out["freshness"] = freshness(sources, watching(store))
    hist = history_block(sources)
    if hist is not None:
        out["history"] = hist
    last = store.last_pass()
    if last is not None and last["outcome"] == "failed":
        out["context_health"] = {
            "last_pass_failed": True, "error": last["error"], "serving_revision": store.revision,
        }
    return out
