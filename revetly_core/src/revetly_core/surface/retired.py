"""Names the surface once served and no longer does, each answered with its replacement."""

from __future__ import annotations

from revetly_core.refusal import Refusal

RETIRED_TOOLS: dict[str, str] = {
    "get_branch": "get_artifact(artifact_id, depth=<levels or 'declared'>)",
    "get_binding": "get_scope(question='binding', artifact_id=... or topic=...)",
    "get_drift": "get_scope(question='drift', artifact_id=...)",
    "get_deltas": "get_scope(question='deltas', since=..., until=...)",
    "behind_path": "get_scope(question='binding', path=...)",
}
"""Retired tool name -> the call that answers the same question now."""


def retired_tool_refusal(name: str) -> Refusal | None:
    """The refusal for a call to a retired tool name, or None when the name is not retired."""
    replacement = RETIRED_TOOLS.get(name)
    if replacement is None:
        return None
    return Refusal(
        "retired-tool", f"{name} was retired; the surface answers its question with another call",
        f"call {replacement}", {"tool": name, "replacement": replacement.split("(")[0]},
    )


RETIRED_ARGUMENTS: dict[str, dict[str, str]] = {
    "search_context": {
        "semantic": "search_context(query=...): search is one read; the keyword leg always runs "
                    "and the graph recipe joins it on a full instance, with no switch between them",
    },
}
"""Tool -> retired argument name -> the call that answers the same question now."""


def retired_argument_refusal(tool: str, argument: str) -> Refusal | None:
    """The refusal for a retired argument of a tool, or None when the argument is not retired."""
    replacement = RETIRED_ARGUMENTS.get(tool, {}).get(argument)
    if replacement is None:
        return None
    return Refusal(
        "retired-argument", f"{tool}'s argument {argument!r} was retired",
        f"call {replacement}",
        {"tool": tool, "argument": argument, "replacement": replacement.split(":")[0]},
    )
