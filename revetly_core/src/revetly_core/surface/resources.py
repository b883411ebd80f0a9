"""The three resources beside the tools, and how a resource that cannot be composed answers."""

from __future__ import annotations

from typing import Any

from revetly_core.refusal import Refusal
from revetly_core.surface.catalogue import REVIEW_APP_URI, TOOLS
from revetly_core.surface.prompts import PROMPTS
from revetly_core.surface.retired import RETIRED_TOOLS

SURFACE_URI = "revetly://surface"
HEALTH_URI = "revetly://health"
BRIEF_URI_TEMPLATE = "revetly://brief/{artifact_id}"
REVIEW_URI_TEMPLATE = "revetly://review/{review_id}"
"""The whole review (state and draft), which the review app reads to show the draft."""
RESOURCE_MIME = "application/json"


def resource_refusal(refusal: Refusal) -> dict[str, Any]:
    """A resource's refusal: the tools' envelope under code 'refused', the cause kept beside it."""
    body = refusal.payload()["refusal"]
    if body["code"] != "refused":
        body = {**body, "code": "refused", "cause": body["code"]}
    body.pop("wrote", None)
    return {"refusal": body}


def surface_document(served: list[str], bound: str | None) -> dict[str, Any]:
    """revetly://surface: the tools served here, the prompts, the resources and retired names."""
    doc: dict[str, Any] = {}
    if bound is not None:
        doc["project"] = bound
        doc["bound"] = True
    doc["tools"] = [
        {"name": t.name, "title": t.title, "kind": t.kind, "app_only": t.app_only}
        for t in TOOLS if t.name in served
    ]
    doc["prompts"] = [{"name": p.name, "argument": p.argument, "description": p.description}
                      for p in PROMPTS]
    doc["resources"] = [SURFACE_URI, HEALTH_URI, BRIEF_URI_TEMPLATE, REVIEW_URI_TEMPLATE]
    doc["review_app"] = REVIEW_APP_URI
    doc["retired_tools"] = dict(RETIRED_TOOLS)
    return doc
