"""Each tool's arguments as one typed model: the names, types and defaults a client may send.

The models are made from the plain declaration in `argument_specs.py` (one declaration per
argument); the MCP shell builds each tool's input schema from them and the surface checks a
call's arguments against them. Field order is the declaration's order.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, create_model

from revetly_core.surface.argument_specs import ARGUMENTS, ArgumentSpec


class ToolArguments(BaseModel):
    """The base of every tool's argument model."""


def _field(spec: ArgumentSpec) -> tuple[Any, Any]:
    return (spec.annotation, ... if spec.required else spec.default)


def arguments_model(model_name: str, tool: str) -> type[ToolArguments]:
    """The typed model of one tool's declared arguments, named ``model_name``."""
    fields: dict[str, Any] = {spec.name: _field(spec) for spec in ARGUMENTS[tool]}
    model: type[ToolArguments] = create_model(model_name, __base__=ToolArguments,
                                              __doc__=f"{tool}.", **fields)
    return model


SearchContextArguments = arguments_model("SearchContextArguments", "search_context")
GetArtifactArguments = arguments_model("GetArtifactArguments", "get_artifact")
ListBacklogArguments = arguments_model("ListBacklogArguments", "list_backlog")
GetScopeArguments = arguments_model("GetScopeArguments", "get_scope")
GetAuthoringContextArguments = arguments_model("GetAuthoringContextArguments",
                                               "get_authoring_context")
ContextHealthArguments = arguments_model("ContextHealthArguments", "context_health")
ListReviewsArguments = arguments_model("ListReviewsArguments", "list_reviews")
ReviewIdArguments = arguments_model("ReviewIdArguments", "review_state")
SubmitDraftArguments = arguments_model("SubmitDraftArguments", "submit_draft")
SubmitRevisionArguments = arguments_model("SubmitRevisionArguments", "submit_revision")
SetStatusArguments = arguments_model("SetStatusArguments", "set_status")
RecordConversationArguments = arguments_model("RecordConversationArguments",
                                              "record_conversation")
ResolveReviewArguments = arguments_model("ResolveReviewArguments", "resolve_review")
WithdrawReviewArguments = arguments_model("WithdrawReviewArguments", "withdraw_review")

MODELS: dict[str, type[ToolArguments]] = {
    "search_context": SearchContextArguments,
    "get_artifact": GetArtifactArguments,
    "list_backlog": ListBacklogArguments,
    "get_scope": GetScopeArguments,
    "get_authoring_context": GetAuthoringContextArguments,
    "context_health": ContextHealthArguments,
    "list_reviews": ListReviewsArguments,
    "review_state": ReviewIdArguments,
    "submit_draft": SubmitDraftArguments,
    "submit_revision": SubmitRevisionArguments,
    "set_status": SetStatusArguments,
    "record_conversation": RecordConversationArguments,
    "raise_review": ReviewIdArguments,
    "resolve_review": ResolveReviewArguments,
    "withdraw_review": WithdrawReviewArguments,
}
"""Every tool's argument model, by tool name."""
