"""The answer types: one per served tool, each a JSON schema an MCP client can validate."""

from __future__ import annotations

import jsonschema
import pytest
import typing_extensions
from pydantic import TypeAdapter
from revetly_core.answers import ANSWER_TYPES, SearchAnswer
from revetly_core.surface import TOOLS

from revetly_core import answers


def test_every_catalogued_tool_has_an_answer_type() -> None:
    assert sorted(ANSWER_TYPES) == sorted(t.name for t in TOOLS)


def test_every_answer_type_is_a_valid_object_schema() -> None:
    for name, answer in ANSWER_TYPES.items():
        schema = TypeAdapter(answer).json_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        branches = schema.get("anyOf", [schema])
        for branch in branches:
            ref = branch.get("$ref", "")
            target = schema["$defs"][ref.rsplit("/", 1)[-1]] if ref else branch
            assert target["type"] == "object", name
            assert target["properties"], f"{name}: an answer type names its keys"


def test_a_read_answer_requires_the_keys_it_always_carries() -> None:
    required = TypeAdapter(SearchAnswer).json_schema()["required"]
    assert {"query", "artifacts", "passages", "facts", "deterministic_facts"} <= set(required)
    assert "facts_truncated" not in required


def test_an_answer_may_carry_keys_its_type_does_not_name() -> None:
    schema = TypeAdapter(answers.ReviewList).json_schema()
    jsonschema.validate({"status": "all", "count": 0, "reviews": [], "later": 1}, schema)


def test_a_wrong_type_in_a_named_key_fails_validation() -> None:
    schema = TypeAdapter(answers.BacklogAnswer).json_schema()
    bad = {"items": [], "total": "three", "limit": 5, "outside_backlog": {"count": 0, "items": []}}
    with pytest.raises(jsonschema.ValidationError) as raised:
        jsonschema.validate(bad, schema)
    assert list(raised.value.absolute_path) == ["total"]


def test_the_models_are_exported() -> None:
    for name in answers.__all__:
        assert hasattr(answers, name), name
    assert typing_extensions.is_typeddict(answers.SearchAnswer)
