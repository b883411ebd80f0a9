"""The served surface's rules, one test each: binding, retired names, catalogue, prompts,
resources and the reviewer's answers."""

from __future__ import annotations

import tomllib

import pytest
from revetly_core.surface import (
    PROMPTS,
    RETIRED_TOOLS,
    REVIEW_APP_URI,
    TOOLS,
    address_project,
    app_only_answer,
    declared_binding,
    dismissed_review,
    host_command_files,
    prompt_text,
    resource_refusal,
    retired_tool_refusal,
    state_project,
    tool_spec,
)
from revetly_core.surface.binding import answer_as_bound

from revetly_core import Refusal, parse_config

DUO = """
[instance]
name = "duo"
default_project = "alpha"
[projects.alpha]
imports = ["beta"]
[projects.beta]
imports = []
"""


def test_declared_binding_refuses_an_undeclared_project_naming_the_declared() -> None:
    with pytest.raises(Refusal) as caught:
        declared_binding(parse_config(tomllib.loads(DUO)), "gamma")
    assert caught.value.code == "unknown-project"
    assert caught.value.extra["declared"] == ["alpha", "beta"]


def test_declared_binding_accepts_a_declared_project_and_none() -> None:
    config = parse_config(tomllib.loads(DUO))
    assert declared_binding(config, "beta") == "beta"
    assert declared_binding(config, None) is None


def test_address_project_defaults_to_the_bound_project() -> None:
    assert address_project("beta", None, "list_backlog") == "beta"
    assert address_project("beta", "beta", "list_backlog") == "beta"
    assert address_project(None, "alpha", "list_backlog") == "alpha"


def test_address_project_refuses_another_project_alone_or_in_a_list() -> None:
    for named in ("alpha", "beta,alpha", ["beta", "alpha"]):
        with pytest.raises(Refusal) as caught:
            address_project("beta", named, "search_context")
        body = caught.value.payload()["refusal"]
        assert body["code"] == "bound-to-another-project"
        assert body["bound_to"] == "beta" and body["named"] == ["alpha"]
        assert "search_context" in body["fix"] and "wrote" not in body


def test_a_write_refused_for_another_project_says_it_wrote_nothing() -> None:
    with pytest.raises(Refusal) as caught:
        address_project("beta", "alpha", "set_status", write=True)
    assert caught.value.extra["wrote"] is False


def test_state_project_names_the_bound_project_once() -> None:
    assert state_project({"a": 1}, "beta") == {"project": "beta", "a": 1}
    assert state_project({"project": "alpha"}, "beta") == {"project": "alpha"}
    assert state_project({"a": 1}, None) == {"a": 1}


def test_a_projectless_read_answers_as_the_bound_project() -> None:
    assert answer_as_bound({"instance": "x", "project": "alpha"}, "beta") == {
        "instance": "x", "project": "beta"}


def test_a_retired_name_is_refused_naming_its_replacement() -> None:
    refusal = retired_tool_refusal("get_branch")
    assert refusal is not None and refusal.code == "retired-tool"
    assert refusal.extra["replacement"] == "get_artifact"
    assert retired_tool_refusal("search_context") is None


def test_no_retired_name_is_a_served_tool() -> None:
    assert not set(RETIRED_TOOLS) & {t.name for t in TOOLS}


def test_the_reviewer_tools_are_app_only_and_carry_app_visibility() -> None:
    reviewer = {t.name for t in TOOLS if t.app_only}
    assert reviewer == {"resolve_review", "review_state", "withdraw_review"}
    for name in reviewer:
        assert tool_spec(name).meta()["ui"] == {"visibility": ["app"]}
    for name in ("submit_draft", "submit_revision", "raise_review"):
        assert tool_spec(name).meta()["ui"] == {"resourceUri": REVIEW_APP_URI}


def test_every_tool_description_is_a_few_hundred_bytes() -> None:
    for spec in TOOLS:
        assert 80 <= len(spec.description.encode()) <= 500, spec.name


def test_reads_are_read_only_and_writes_are_not() -> None:
    for spec in TOOLS:
        assert spec.read_only == (spec.kind == "read" or spec.name == "review_state"), spec.name
        assert spec.destructive is False


def test_a_prompt_fills_in_its_one_argument() -> None:
    assert "STORY-7" in prompt_text("revetly-ship", "STORY-7")
    with pytest.raises(Refusal):
        prompt_text("revetly-nothing", "x")


def test_the_host_command_files_carry_the_prompt_instructions() -> None:
    files = host_command_files()
    for spec in PROMPTS:
        claude = files[f".claude/commands/{spec.name}.md"]
        assert spec.render("$ARGUMENTS") in claude
        assert f".github/prompts/{spec.name}.prompt.md" in files


def test_a_resource_refusal_is_code_refused_keeping_its_cause() -> None:
    body = resource_refusal(Refusal("not-found", "no such artifact", "search", {"wrote": False}))
    assert body["refusal"]["code"] == "refused" and body["refusal"]["cause"] == "not-found"
    assert "wrote" not in body["refusal"]


def test_app_only_answers_name_the_client_and_write_nothing() -> None:
    answer = app_only_answer("resolve_review", "acme-agent", "1.4.0", "REV-0123456789abcdef")
    assert answer["status"] == "app-only" and answer["wrote"] is False
    assert "acme-agent 1.4.0" in answer["detail"]


def test_a_dismissed_dialog_keeps_the_review_pending() -> None:
    answer = dismissed_review("REV-0123456789abcdef", {"status": "pending"})
    assert answer["status"] == "pending" and answer["dialog"] == "dismissed"
    assert answer["wrote"] is False
