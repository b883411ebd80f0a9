"""Guarded proxy tools: what an owner registers (exact schema and version) and what a handler sees.

A tool's input schema is a JSON Schema the owner writes; arguments are validated against it
before anything is admitted. The digest of the canonical schema is part of every admission,
so a tool whose schema changed is never confused with the one an execution was admitted under.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from revetly_core.governed.scope import Scope
from revetly_core.refusal import Refusal

_TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
MAX_DESCRIPTION = 2000


def canonical_json(value: object) -> str:
    """The one JSON spelling digests are taken over: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def arguments_digest(arguments: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a call's arguments (what a journal entry must quote)."""
    return hashlib.sha256(canonical_json(arguments).encode()).hexdigest()


def check_tool_name(name: str) -> str:
    """A guarded tool name is 1-64 characters of a-z 0-9 _ starting with a letter."""
    if not isinstance(name, str) or not _TOOL_NAME.match(name):
        raise Refusal("bad_tool_name", f"{name!r} is not a guarded tool name",
                      "use 1-64 characters from a-z 0-9 _ starting with a letter")
    return name


def check_schema(schema: object) -> dict[str, Any]:
    """An input schema is a valid JSON Schema (draft 2020-12) describing an object."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise Refusal("bad_tool_schema", "a guarded tool's input schema is a JSON Schema of type object",
                      'declare {"type": "object", "properties": {...}, "required": [...]}')
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise Refusal("bad_tool_schema", f"the input schema is not valid JSON Schema: {exc.message}",
                      "fix the schema") from None
    return schema


_VALIDATORS: dict[str, Any] = {}
"""One compiled validator per schema digest (schemas are immutable once registered)."""


def _validator(tool: GuardedTool) -> Any:
    from jsonschema import Draft202012Validator

    digest = tool.schema_sha256
    if digest not in _VALIDATORS:
        _VALIDATORS[digest] = Draft202012Validator(tool.input_schema)
    return _VALIDATORS[digest]


def validate_arguments(tool: GuardedTool, arguments: object) -> dict[str, Any]:
    """Arguments must satisfy the tool's exact schema; the first problem is named, nothing admitted."""
    if not isinstance(arguments, dict):
        raise Refusal("bad_tool_arguments", "guarded arguments are a JSON object",
                      "send the arguments as an object matching the tool's input schema")
    errors = sorted(_validator(tool).iter_errors(arguments),
                    key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(arguments)"
        raise Refusal("bad_tool_arguments", f"{tool.name}: {where}: {first.message}",
                      "call guarded_tools for the exact input schema", {"argument": where})
    return arguments


@dataclass(frozen=True)
class GuardedTool:
    """One owner-registered proxy tool: its name, version, description and exact input schema."""

    name: str
    version: str
    description: str
    input_schema: dict[str, Any] = field(hash=False)

    def __post_init__(self) -> None:
        check_tool_name(self.name)
        if not isinstance(self.version, str) or not _VERSION.match(self.version):
            raise Refusal("bad_tool_version", f"{self.version!r} is not a tool version",
                          "use 1-64 characters from A-Z a-z 0-9 . _ + -")
        if not isinstance(self.description, str) or len(self.description) > MAX_DESCRIPTION:
            raise Refusal("bad_tool_schema", f"a description is text of at most {MAX_DESCRIPTION} "
                          "characters", "shorten the description")
        check_schema(self.input_schema)

    @property
    def schema_sha256(self) -> str:
        """SHA-256 of the canonical input schema."""
        return hashlib.sha256(canonical_json(self.input_schema).encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "description": self.description,
                "input_schema": self.input_schema, "schema_sha256": self.schema_sha256}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GuardedTool:
        return cls(data["name"], data["version"], data["description"], data["input_schema"])


@dataclass(frozen=True)
class ExecutionContext:
    """What a with_context handler receives beside the arguments. It holds no credential."""

    execution_id: str
    idempotency_key: str
    actor: str
    scope: Scope
    tool: str
    tool_version: str
    arguments_sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"execution_id": self.execution_id, "idempotency_key": self.idempotency_key,
                "actor": self.actor, "scope": self.scope.to_dict(), "tool": self.tool,
                "tool_version": self.tool_version, "arguments_sha256": self.arguments_sha256}


@runtime_checkable
class GuardedHandler(Protocol):
    """Application code behind a guarded tool. A normal return means a definitive response;
    an ambiguous effect must raise (the execution is then uncertain and its hold stands).
    Handlers registered with_context=True are called as invoke(arguments, context=...)."""

    def invoke(self, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]: ...
