"""The MCP server's tools are built from core's registry: each tool function takes exactly the
declared arguments (keyword-only, with the declared defaults) plus the call's Context, and
answers in the answer-or-refusal schema."""

from __future__ import annotations

import inspect

import pytest
from mcp.server.mcpserver import Context
from revetly_core.surface import TOOLS
from revetly_core.surface.catalogue import TOOLS_BY_NAME
from revetly_mcp.server import tool_function, tool_signature

NAMES = [spec.name for spec in TOOLS]


@pytest.mark.parametrize("name", NAMES)
def test_a_tool_signature_is_its_declared_arguments_and_the_context(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    parameters = tool_signature(spec).parameters
    assert list(parameters) == ["ctx", *spec.arguments]
    assert parameters["ctx"].annotation is Context
    for argument, field in spec.parameters.model_fields.items():
        parameter = parameters[argument]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
        assert parameter.annotation == field.annotation
        expected = inspect.Parameter.empty if field.is_required() else field.default
        assert parameter.default == expected


async def _body(name: str, ctx: object, **arguments: object) -> object:
    return {"tool": name, "arguments": arguments}


@pytest.mark.parametrize("name", NAMES)
def test_a_tool_function_is_named_after_its_tool_and_reads_as_its_signature(name: str) -> None:
    spec = TOOLS_BY_NAME[name]
    fn = tool_function(spec, _body)  # type: ignore[arg-type]
    assert fn.__name__ == name
    assert inspect.signature(fn).parameters == tool_signature(spec).parameters


@pytest.mark.anyio
async def test_a_tool_function_hands_its_name_and_arguments_to_the_body() -> None:
    fn = tool_function(TOOLS_BY_NAME["search_context"], _body)  # type: ignore[arg-type]
    answered = await fn(ctx=None, query="invoices", limit=3)
    assert answered == {"tool": "search_context", "arguments": {"query": "invoices", "limit": 3}}
