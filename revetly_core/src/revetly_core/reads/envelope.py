"""What every read carries besides its answer: project, freshness, history, context_health."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.answers.common import Envelope, FailedPass, Freshness
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
    """Which projects answer a read (one, or several for a spanning read), and which
    projects' artifacts it may reach."""

    name: str
    reach: tuple[str, ...]
    multi: bool
    names: tuple[str, ...] = ()

    @property
    def answering(self) -> tuple[str, ...]:
        """The projects the read answers as (the one named, or each of a spanning read)."""
        return self.names or (self.name,)

    @property
    def spanning(self) -> bool:
        """True when the read names several projects and answers over their union."""
        return len(self.answering) > 1

    @property
    def label(self) -> str:
        """The projects as a read names them back: one name, or a comma list."""
        return ",".join(self.answering)


def spanned_names(project: str | None) -> list[str]:
    """The project names a read's project argument holds: one name or a comma list
    ("a,b"), in the order named, each once; empty when none is named."""
    if project is None:
        return []
    out: list[str] = []
    for part in project.split(","):
        name = part.strip()
        if name and name not in out:
            out.append(name)
    return out


def check_declared(config: Config, names: list[str]) -> None:
    """Every project a read names is declared; the first that is not is refused by name."""
    declared = config.project_names
    for name in names:
        if name not in declared:
            raise Refusal(
                "unknown-project", f"project {name!r} is not declared on this instance",
                f"name one of: {', '.join(declared)}", {"argument": "project"},
            )


def project_reach(config: Config, names: list[str], *, with_imports: bool) -> tuple[str, ...]:
    """What a read over these projects reaches: the projects themselves and, for a question,
    what each imports (the union, in order, each once)."""
    reach = list(names)
    if with_imports:
        for name in names:
            if name in config.projects:
                reach.extend(i for i in config.projects[name].imports if i not in reach)
    return tuple(reach)


def resolve_project(config: Config, project: str | None, *, with_imports: bool) -> ProjectScope:
    """The named project (or the default, or each of a comma list for a spanning read) and,
    for a question, what they import."""
    names = spanned_names(project) or [config.default_project]
    check_declared(config, names)
    reach = project_reach(config, names, with_imports=with_imports)
    multi = len(config.project_names) > 1
    return ProjectScope(names[0], reach, multi=multi, names=tuple(names))


def project_sources(store: Store, scope: ProjectScope, name: str) -> list[dict[str, Any]]:
    """The source rows a project's freshness and history are read off: its own sources (and
    those no project claims); every source on a one-project instance."""
    return [
        {"source": r["source"], "last_read_at": r["last_read_at"], "floor": r["floor"],
         "gaps": json.loads(r["gaps"]), "partial": bool(r["partial"])}
        for r in store.sources() if r["project"] in (None, name) or not scope.multi
    ]


def failed_pass(store: Store) -> FailedPass | None:
    """The context_health block of a read: present only when the last pass failed."""
    last = store.last_pass()
    if last is None or last["outcome"] != "failed":
        return None
    return {"last_pass_failed": True, "error": last["error"], "serving_revision": store.revision}


def envelope(config: Config, store: Store, scope: ProjectScope) -> Envelope:
    """freshness always; history where a source has a floor; context_health when a pass failed.
    A spanning read names its projects under `projects` and keys each block by project."""
    from revetly_core.reads.health import freshness, history_block, watching

    watch = watching(store)
    failed = failed_pass(store)
    if scope.spanning:
        return spanning_envelope(store, scope, watch, failed)
    sources = project_sources(store, scope, scope.name)
    out: Envelope = {}
    if scope.multi:
        out["project"] = scope.name
    out["freshness"] = freshness(sources, watch)
    hist = history_block(sources)
    if hist is not None:
        out["history"] = hist
    if failed is not None:
        out["context_health"] = failed
    return out


def spanning_envelope(store: Store, scope: ProjectScope, watch: bool,
                      failed: FailedPass | None) -> Envelope:
    """The envelope of a read over several projects: `projects`, and freshness, history and
    context_health each keyed by project (history only for the projects with a floor)."""
    from revetly_core.reads.health import freshness, history_block

    fresh: dict[str, Freshness] = {}
    hist: dict[str, Any] = {}
    for name in scope.answering:
        sources = project_sources(store, scope, name)
        fresh[name] = freshness(sources, watch)
        block = history_block(sources)
        if block is not None:
            hist[name] = block
    out: Envelope = {"projects": list(scope.answering), "freshness": fresh}
    if hist:
        out["history"] = hist
    if failed is not None:
        out["context_health"] = {name: failed for name in scope.answering}
    return out
