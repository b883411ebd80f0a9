"""The served surface of one engine on one connection: tools by name, bound project, refusals."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from revetly_core.config import load_config
from revetly_core.embedding.resolve import provider_refusal
from revetly_core.engine import Engine
from revetly_core.instance.layout import locate_instance
from revetly_core.refusal import Refusal
from revetly_core.surface.arguments import unknown_argument_refusal
from revetly_core.surface.binding import (
    address_project,
    answer_as_bound,
    declared_binding,
    state_project,
)
from revetly_core.surface.catalogue import TOOLS, tool_spec
from revetly_core.surface.resources import resource_refusal, surface_document
from revetly_core.surface.retired import retired_tool_refusal
from revetly_core.surface.reviewer import app_only_answer


def is_declaration_refusal(refusal: Refusal) -> bool:
    """Whether a refusal at open is about the instance's declaration (a setting that does not add
    up, an unreadable revetly.toml): served as every tool's answer rather than stopping the server."""
    return refusal.code == "refused"


def open_engine(root: Path) -> Engine:
    """The engine over a declaration that adds up and whose [embedding] provider resolves;
    either failing is raised as the declaration refusal the surface serves on every tool."""
    config = load_config(root)
    refusal = provider_refusal(config)
    if refusal is not None:
        raise refusal
    return Engine(root, config)


def write_refusal(payload: dict[str, Any]) -> dict[str, Any]:
    """A write refused before its body ran says so: wrote is false."""
    if "refusal" in payload:
        payload["refusal"].setdefault("wrote", False)
    return payload


class Surface:
    """What a shell serves: every tool a single call, every answer a JSON-ready payload.

    A surface opened on an instance whose declaration does not add up still serves: every tool
    and resource answers that refusal (code refused, naming the setting), and each call reads the
    declaration again, so a fixed revetly.toml is served without a restart.
    """

    def __init__(self, engine: Engine, project: str | None = None) -> None:
        self._engine: Engine | None = engine
        self._root = engine.root
        self._project = project
        self.bound = declared_binding(engine.config, project)

    @classmethod
    def open(cls, instance: str | Path | None = None, project: str | None = None) -> Surface:
        """The surface of the instance found as Engine.open finds it. No instance, or an
        undeclared project, is raised (nothing to serve); a declaration refusal is served."""
        root = locate_instance(instance)
        try:
            engine = open_engine(root)
        except Refusal as refusal:
            if not is_declaration_refusal(refusal):
                raise
            surface = cls.__new__(cls)
            surface._engine, surface._root, surface._project = None, root, project
            surface.bound = None
            return surface
        return cls(engine, project)

    @property
    def engine(self) -> Engine:
        """The engine, read again from disk while the declaration is refused (raises it)."""
        if self._engine is None:
            engine = open_engine(self._root)
            self.bound = declared_binding(engine.config, self._project)
            self._engine = engine
        return self._engine

    def served(self) -> list[str]:
        """The tools served: every tool the registry declares (each names its engine call)."""
        return [t.name for t in TOOLS]

    def declaration_refusal(self) -> Refusal | None:
        """Why this instance's declaration is refused right now (read again), or None."""
        try:
            self.engine  # noqa: B018 - reading it loads the declaration
        except Refusal as refusal:
            return refusal
        return None

    def refuse_arguments(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
        """The refusal of a call naming an argument the tool does not take, or None."""
        refusal = unknown_argument_refusal(name, arguments)
        return None if refusal is None else self.refused_before_call(name, refusal)

    def refused_before_call(self, name: str, refusal: Refusal) -> dict[str, Any]:
        """A refusal answered before the tool ran, in its envelope: a write says it wrote
        nothing, a bound connection names its project."""
        payload = refusal.payload()
        if not tool_spec(name).read_only:
            write_refusal(payload)
        return state_project(payload, self.bound)

    def is_retired(self, name: str) -> bool:
        """Whether a name is one the surface retired (answered with its replacement)."""
        return retired_tool_refusal(name) is not None

    def listed(self, reviewer_withheld: bool) -> list[str]:
        """The tools offered to a client; the reviewer's are withheld where it has no app."""
        return [n for n in self.served() if not (reviewer_withheld and tool_spec(n).app_only)]

    def call(self, name: str, arguments: dict[str, Any], *, reviewer_withheld: bool = False,
             client_name: str | None = None, client_version: str | None = None,
             **session: Any) -> dict[str, Any]:
        """Answer one tool call: the engine's payload, or the refusal in the same envelope."""
        retired = retired_tool_refusal(name)
        if retired is not None:
            return state_project(retired.payload(), self.bound)
        spec = tool_spec(name)
        if spec.app_only and reviewer_withheld:
            return state_project(app_only_answer(name, client_name, client_version,
                                                 arguments.get("review_id")), self.bound)
        args = {k: v for k, v in arguments.items() if v is not None}
        try:
            engine = self.engine
            if name == "raise_review":
                self.check_review_project(args.get("review_id"))
            if spec.takes_project:
                args["project"] = address_project(self.bound, args.get("project"), name,
                                                  write=spec.kind == "write")
            payload = dict(spec.call(engine, **args, **session))
        except Refusal as refusal:
            payload = refusal.payload()
            if self._engine is None and not spec.read_only:
                write_refusal(payload)
        if spec.takes_project or spec.kind != "read":
            return state_project(payload, self.bound)
        return answer_as_bound(payload, self.bound)

    def check_review_project(self, review_id: object) -> None:
        """On a bound connection, raise_review reaches the bound project's reviews only."""
        if self.bound is None or not isinstance(review_id, str):
            return
        project = self.engine.review_state(review_id).get("project")
        if project not in (None, self.bound):
            address_project(self.bound, str(project), "raise_review", write=True)

    def review_resource(self, review_id: str) -> dict[str, Any]:
        """revetly://review/{review_id}: the review and its whole draft, for the review app."""
        try:
            self.check_review_project(review_id)
            return state_project(dict(self.engine.show_review(review_id)), self.bound)
        except Refusal as refusal:
            return resource_refusal(refusal)

    def surface_resource(self) -> dict[str, Any]:
        """revetly://surface."""
        return surface_document(self.served(), self.bound)

    def health_resource(self) -> dict[str, Any]:
        """revetly://health: context_health, or the resource refusal."""
        try:
            return answer_as_bound(dict(self.engine.context_health()), self.bound)
        except Refusal as refusal:
            return resource_refusal(refusal)

    def brief_resource(self, artifact_id: str) -> dict[str, Any]:
        """revetly://brief/{artifact_id}: get_artifact's brief, or the resource refusal."""
        try:
            return state_project(dict(self.engine.get_artifact(artifact_id, project=self.bound)),
                                 self.bound)
        except Refusal as refusal:
            return resource_refusal(refusal)
