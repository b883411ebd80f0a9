"""A tool call's arguments, checked against the catalogue before the tool runs.

An argument the catalogue does not name is refused by name (never silently dropped, which
would answer as if nothing had been asked), a retired one with the call that replaced it, and a
value of the wrong type with what the tool takes there. Shells hand over the arguments as the
client sent them; the refusal is the one envelope every tool answers in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from revetly_core.refusal import Refusal
from revetly_core.surface.catalogue import tool_spec
from revetly_core.surface.retired import retired_argument_refusal

_TYPE_WORDS = {
    "string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
    "array": "a list", "object": "an object", "null": "null",
}


def unknown_argument_refusal(tool: str, arguments: Mapping[str, Any]) -> Refusal | None:
    """The refusal for the first argument a tool does not take (retired or unknown), or None."""
    accepted = tool_spec(tool).arguments
    for name in arguments:
        if name in accepted:
            continue
        retired = retired_argument_refusal(tool, name)
        if retired is not None:
            return retired
        return Refusal(
            "unknown-argument", f"{tool} takes no argument {name!r}",
            f"call {tool} with: {', '.join(accepted)}" if accepted else f"call {tool} with no arguments",
            {"tool": tool, "argument": name, "accepted": list(accepted)},
        )
    return None


def describe_schema(schema: Mapping[str, Any]) -> str:
    """What a JSON schema admits, in words: 'an integer or null', 'a list of strings'."""
    if "anyOf" in schema:
        return " or ".join(describe_schema(part) for part in schema["anyOf"])
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        item = describe_schema(schema["items"]).removeprefix("an ").removeprefix("a ")
        return f"a list of {item}s" if item and " " not in item else f"a list of {item}"
    if isinstance(kind, str):
        return _TYPE_WORDS.get(kind, kind)
    return "a JSON value"


def invalid_argument_refusal(tool: str, argument: str, problem: str,
                             schema: Mapping[str, Any] | None, *,
                             code: str = "invalid-argument") -> Refusal:
    """A value the tool cannot take there (wrong type, or a required one missing), named."""
    expected = describe_schema(schema) if schema is not None else None
    fix = (f"pass {argument} as {expected}" if expected else f"pass {argument} as "
           f"{tool}'s input schema describes it")
    extra: dict[str, Any] = {"tool": tool, "argument": argument}
    if expected is not None:
        extra["expected"] = expected
    return Refusal(code, f"{tool}'s argument {argument!r}: {problem}", fix, extra)
