"""Output schemas: every tool's answer, united with the one refusal envelope (root type object)."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, RootModel
from revetly_core.answers import ANSWER_TYPES

from revetly_mcp.json_text import indented_json


class RefusalBody(BaseModel):
    """What was refused, a stable code to branch on, and what to call instead."""

    model_config = ConfigDict(extra="allow")
    code: str
    detail: str
    fix: str


class RefusalEnvelope(BaseModel):
    """The one refusal shape: {"refusal": {"code", "detail", "fix", ...}}, and what the refusal
    names beside it (an authenticated call outside its grant carries ``grant``)."""

    model_config = ConfigDict(extra="allow", title="Refusal")
    refusal: RefusalBody


def answer_or_refusal(tool: str) -> type[RootModel[Any]]:
    """The output model of one tool: its typed answer, or the refusal envelope (root object).
    Declared with a `root` annotation rather than as a subclass of ``RootModel[union]``, so
    pydantic builds the union's schema once, not also for that parametrized intermediate."""
    title = "".join(part.capitalize() for part in tool.split("_")) + "OrRefusal"
    union = ANSWER_TYPES[tool] | RefusalEnvelope
    namespace = {"__annotations__": {"root": union}, "__module__": __name__,
                 "__qualname__": title,
                 "model_config": ConfigDict(json_schema_extra={"type": "object"})}
    output: type[RootModel[Any]] = type(title, (RootModel,), namespace)
    return output


def payload_text(payload: dict[str, Any]) -> str:
    """The payload as text content: the same bytes `revetly ... --json` prints."""
    return indented_json(payload)


def tool_result(payload: dict[str, Any]) -> CallToolResult:
    """One payload as a tool result: the same body in structuredContent and in the text."""
    return CallToolResult(content=[TextContent(type="text", text=payload_text(payload))],
                          structured_content=payload, is_error=False)
