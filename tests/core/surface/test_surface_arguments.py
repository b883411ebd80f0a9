"""The surface's argument and declaration rules, one test each: unknown and retired arguments,
wrong values, prompt requests, and a revetly.toml that does not add up."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.surface import (
    PROMPTS,
    RETIRED_ARGUMENTS,
    TOOLS,
    Surface,
    describe_schema,
    invalid_argument_refusal,
    is_declaration_refusal,
    prompt_request_refusal,
    retired_argument_refusal,
    tool_spec,
    unknown_argument_refusal,
)

from revetly_core import Engine, Refusal

BROKEN = '\n[index]\nbackend = "nope"\n'


@pytest.fixture()
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    root = tmp_path / "inst"
    Engine.init(root)
    Engine.open(root).sync()
    return root


def test_every_tool_declares_its_arguments_once() -> None:
    for spec in TOOLS:
        assert spec.arguments, spec.name
        assert len(set(spec.arguments)) == len(spec.arguments), spec.name
        assert ("project" in spec.arguments) == spec.takes_project, spec.name


def test_an_unknown_argument_is_refused_by_name_with_what_the_tool_takes() -> None:
    refusal = unknown_argument_refusal("search_context", {"query": "x", "qeury": "y"})
    assert refusal is not None and refusal.code == "unknown-argument"
    assert refusal.extra["argument"] == "qeury"
    assert refusal.extra["accepted"] == ["query", "limit", "project", "deleted", "inferred"]
    assert "query" in refusal.fix


def test_a_retired_argument_is_refused_with_its_replacement() -> None:
    refusal = unknown_argument_refusal("search_context", {"query": "x", "semantic": True})
    assert refusal is not None and refusal.code == "retired-argument"
    assert refusal.extra["replacement"] == "search_context(query=...)"
    assert refusal.fix.startswith("call search_context(")


def test_retired_argument_refusal_is_none_for_a_live_or_unknown_name() -> None:
    assert retired_argument_refusal("search_context", "query") is None
    assert retired_argument_refusal("get_artifact", "semantic") is None
    for tool, names in RETIRED_ARGUMENTS.items():
        for name in names:
            found = retired_argument_refusal(tool, name)
            assert found is not None and found.extra["argument"] == name


def test_the_arguments_a_tool_takes_pass() -> None:
    for spec in TOOLS:
        assert unknown_argument_refusal(spec.name, dict.fromkeys(spec.arguments)) is None


def test_describe_schema_says_what_a_json_schema_admits() -> None:
    assert describe_schema({"type": "integer"}) == "an integer"
    assert describe_schema({"anyOf": [{"type": "string"}, {"type": "null"}]}) == "a string or null"
    assert describe_schema({"type": "array", "items": {"type": "string"}}) == "a list of strings"
    assert describe_schema({"type": "array", "items": {"type": "object"}}) == "a list of objects"
    assert describe_schema({"enum": ["a", "b"]}) == "one of 'a', 'b'"
    assert describe_schema({}) == "a JSON value"


def test_invalid_argument_refusal_names_the_argument_and_the_expected_type() -> None:
    refusal = invalid_argument_refusal("search_context", "limit", "input should be a valid integer",
                                       {"type": "integer"})
    body = refusal.payload()["refusal"]
    assert body["code"] == "invalid-argument"
    assert body["argument"] == "limit" and body["expected"] == "an integer"
    assert body["fix"] == "pass limit as an integer"
    assert invalid_argument_refusal("t", "a", "bad", None, code="bad_argument").code == "bad_argument"


def test_prompt_request_refusal_names_an_unknown_prompt_and_a_missing_argument() -> None:
    unknown = prompt_request_refusal("nope", {})
    assert unknown is not None and unknown.code == "unknown-prompt"
    assert unknown.extra["prompts"] == [p.name for p in PROMPTS]
    missing = prompt_request_refusal("revetly-ground", {"task": "  "})
    assert missing is not None and missing.code == "missing-argument"
    assert missing.extra["argument"] == "task"
    assert prompt_request_refusal("revetly-ground", {"task": "STORY-1"}) is None


def test_a_declaration_refusal_is_the_refused_code() -> None:
    assert is_declaration_refusal(Refusal("refused", "d", "f", {"setting": "index.backend"}))
    assert not is_declaration_refusal(Refusal("no-instance", "d", "f"))


# ---- a revetly.toml that does not add up ----


def test_a_broken_declaration_is_served_as_every_tools_refusal_naming_the_setting(
        instance: Path) -> None:
    with (instance / "revetly.toml").open("a") as handle:
        handle.write(BROKEN)
    surface = Surface.open(instance)
    for name, arguments in (("context_health", {}), ("search_context", {"query": "invoices"}),
                            ("list_reviews", {})):
        body = surface.call(name, arguments)["refusal"]
        assert body["code"] == "refused" and body["setting"] == "index.backend", name
        assert "wrote" not in body
    write = surface.call("set_status", {"artifact_id": "STORY-1", "status": "done"})["refusal"]
    assert write["code"] == "refused" and write["wrote"] is False
    health = surface.health_resource()["refusal"]
    assert health["code"] == "refused" and health["setting"] == "index.backend"
    assert [t["name"] for t in surface.surface_resource()["tools"]] == surface.served()


def test_a_fixed_declaration_is_served_without_a_restart(instance: Path) -> None:
    config = instance / "revetly.toml"
    good = config.read_text()
    config.write_text(good + BROKEN)
    surface = Surface.open(instance)
    assert surface.declaration_refusal() is not None
    config.write_text(good)
    assert surface.declaration_refusal() is None
    assert "corpus_revision" in surface.call("context_health", {})


def test_no_instance_and_an_undeclared_project_still_stop_the_surface(
        instance: Path, tmp_path: Path) -> None:
    with pytest.raises(Refusal) as missing:
        Surface.open(tmp_path / "nowhere")
    assert missing.value.code == "no-instance"
    with pytest.raises(Refusal) as unbound:
        Surface.open(instance, "gamma")
    assert unbound.value.code == "unknown-project"


def test_an_argument_refusal_of_a_write_says_it_wrote_nothing(instance: Path) -> None:
    surface = Surface.open(instance)
    refused = surface.refuse_arguments("set_status", {"artifact_id": "X", "bogus": 1})
    assert refused is not None and refused["refusal"]["wrote"] is False
    read = surface.refuse_arguments("search_context", {"query": "x", "semantic": True})
    assert read is not None and "wrote" not in read["refusal"]
    assert surface.refuse_arguments("search_context", {"query": "x"}) is None


@given(st.sampled_from([spec.name for spec in TOOLS]),
       st.dictionaries(st.text(max_size=12), st.none() | st.integers() | st.text(max_size=5),
                       max_size=6))
def test_arguments_pass_exactly_when_the_tool_takes_every_name(tool: str,
                                                                arguments: dict[str, object]) -> None:
    refusal = unknown_argument_refusal(tool, arguments)
    accepted = set(tool_spec(tool).arguments)
    if set(arguments) <= accepted:
        assert refusal is None
    else:
        assert refusal is not None and refusal.extra["argument"] not in accepted
        assert refusal.code in ("unknown-argument", "retired-argument")
