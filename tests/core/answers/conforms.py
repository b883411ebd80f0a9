"""One check for every answer test: a real payload validates against its type's JSON schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jsonschema
from pydantic import TypeAdapter


def schema_of(answer: object) -> dict[str, Any]:
    """The JSON schema pydantic derives from an answer type (a TypedDict or a union of them)."""
    schema: dict[str, Any] = TypeAdapter(answer).json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def _object_schemas(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    branches = schema.get("anyOf", [schema])
    defs = schema.get("$defs", {})
    return [defs[b["$ref"].rsplit("/", 1)[-1]] if "$ref" in b else b for b in branches]


def assert_conforms(answer: object, payload: Mapping[str, Any]) -> None:
    """The payload, as its JSON bytes, validates against the type's schema, and every key it
    carries at the top is one the type names (so the type is the whole answer, not a part)."""
    schema = schema_of(answer)
    document = json.loads(json.dumps(payload))
    jsonschema.validate(document, schema)
    named = set().union(*(set(s.get("properties", {})) for s in _object_schemas(schema)))
    assert set(document) <= named, sorted(set(document) - named)
