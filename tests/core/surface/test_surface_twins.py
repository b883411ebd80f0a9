"""The CLI twins as plain data: what a twin's command values stand for in its tool's arguments
(renames, fixed and composed arguments, conversions), and the one engine call that answers a
twin's command."""

from __future__ import annotations

import subprocess
import sys

import pytest
from revetly_core.surface.argument_specs import ARGUMENTS, REQUIRED, arguments_of
from revetly_core.surface.catalogue import TOOLS_BY_NAME, command_call
from revetly_core.surface.command_answer import answer_command, refused_by_status
from revetly_core.surface.twins import (
    CliTwin,
    command_params,
    depth_value,
    every_twin,
    local_paths,
    one_decision,
    revises_value,
    tool_arguments,
    twins_of,
)

from revetly_core import Engine
from tests.core.gitrepo import Instance


def twin(command: str) -> tuple[str, CliTwin]:
    return next((tool, t) for tool, t in every_twin() if t.command == command)


def test_every_tool_declares_its_arguments() -> None:
    assert sorted(ARGUMENTS) == sorted(TOOLS_BY_NAME)


def test_a_required_argument_has_no_default() -> None:
    query = arguments_of("search_context")[0]
    assert query.name == "query" and query.required and query.default is REQUIRED
    assert not arguments_of("search_context")[1].required


def test_the_twin_declarations_import_only_the_standard_library() -> None:
    code = ("import sys, revetly_core.surface.twins; "
            "print(sorted(m for m in sys.modules if m.startswith('revetly_core.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(["revetly_core.model", "revetly_core.refusal",
                                      "revetly_core.refusal_codes", "revetly_core.surface",
                                      "revetly_core.surface.argument_specs",
                                      "revetly_core.surface.twins"])


def test_a_command_twinned_by_two_tools_is_listed_once() -> None:
    commands = [t.command for _, t in every_twin()]
    assert len(commands) == len(set(commands))
    assert twins_of("review_state")[0].command == twins_of("raise_review")[0].command


def test_a_command_takes_the_declared_arguments_less_what_it_fixes_or_omits() -> None:
    tool, drift = twin("drift")
    names = [p.name for p in command_params(tool, drift)]
    assert names == ["artifact_id", "since", "until", "limit", "project"]
    flags = {p.name: p.flags for p in command_params(tool, drift)}
    assert flags["artifact_id"] == ("--artifact", "-a") and flags["since"] == ("--since",)


def test_a_renamed_argument_keeps_its_declared_help_unless_the_twin_gives_one() -> None:
    tool, status_set = twin("status-set")
    verdict = next(p for p in command_params(tool, status_set) if p.argument == "verdicts")
    assert verdict.name == "verdict" and verdict.flags == ("--verdict",)
    assert verdict.help == "done: met, partial or not-met, once per criterion in order."


def test_a_twin_hands_the_tool_its_fixed_and_renamed_arguments() -> None:
    tool, drift = twin("drift")
    values = {"artifact_id": "EPIC-0001", "since": None, "until": None, "limit": 5,
              "project": None}
    assert tool_arguments(tool, drift, values) == {
        "question": "drift", "artifact_id": "EPIC-0001", "since": None, "until": None,
        "limit": 5, "project": None}
    tool, status_set = twin("status-set")
    values = {"artifact_id": "STORY-0001", "status": "done", "claimed_by": None, "reason": None,
              "verdict": ["met"], "project": None}
    assert tool_arguments(tool, status_set, values)["verdicts"] == ["met"]


def test_a_repeatable_option_given_no_value_is_none() -> None:
    tool, note = twin("note")
    values = {"title": "t", "body": "b", "related": [], "project": None}
    assert tool_arguments(tool, note, values) == {"title": "t", "body": "b", "related_ids": None,
                                                  "project": None, "decisions": None}


def test_an_empty_text_is_passed_as_given() -> None:
    tool, inspect = twin("inspect")
    values = {"artifact_id": "STORY-0001", "project": None, "history_after": "", "deleted": None,
              "inferred": None}
    assert tool_arguments(tool, inspect, values)["history_after"] == ""


def test_depth_is_a_number_or_a_word() -> None:
    assert depth_value("2") == 2
    assert depth_value("declared") == "declared"


def test_revises_names_criteria_positions_after_a_colon() -> None:
    assert revises_value(["STORY-0007", "STORY-0008:1,3", "STORY-0009:a"]) == [
        "STORY-0007", {"id": "STORY-0008", "criteria": [1, 3]},
        {"id": "STORY-0009", "criteria": ["a"]}]


def test_decide_composes_one_decision() -> None:
    values = {"title": "Use SQLite", "body": "one file", "supersedes": ["CONV-0001"],
              "revises": ["STORY-0007:1,3"]}
    assert one_decision(values) == {"decisions": [{
        "title": "Use SQLite", "decision": "one file", "supersedes": ["CONV-0001"],
        "revises": [{"id": "STORY-0007", "criteria": [1, 3]}]}]}
    assert one_decision({"title": "t", "body": "b", "supersedes": None, "revises": []}) == {
        "decisions": [{"title": "t", "decision": "b"}]}


def test_only_binding_takes_a_file_named_from_here() -> None:
    assert [t.command for tool, t in every_twin() if local_paths(tool, t)] == ["binding"]


def test_a_twin_is_answered_by_its_tools_engine_method_unless_named_otherwise() -> None:
    assert command_call("search_context", "search") is Engine.search_context
    assert command_call("review_state", "review show") is Engine.show_review


def test_a_write_twin_exits_as_refused_on_a_refused_status() -> None:
    _, note = twin("note")
    _, inspect = twin("inspect")
    assert refused_by_status(note, {"status": "refused"})
    assert not refused_by_status(note, {"status": "applied"})
    assert not refused_by_status(inspect, {"status": "refused"})


def test_a_command_answers_what_its_tool_answers(instance: Instance) -> None:
    instance.git.write_and_commit({"backlog/STORY-0001.md": (
        "---\nid: STORY-0001\ntitle: Export invoices\ntype: story\nstatus: ready\n---\n"
        "Export the invoices as CSV.\n")})
    instance.sync()
    tool, search = twin("search")
    values = {"query": "export invoices", "limit": 10, "project": None, "deleted": None,
              "inferred": None, "wide": False}
    assert answer_command(instance.root, tool, search, values) == \
        Engine.open(instance.root).search_context("export invoices")


def test_a_command_refusal_is_the_engines(instance: Instance) -> None:
    from revetly_core import Refusal

    tool, search = twin("search")
    values = {"query": "x", "limit": 10, "project": None, "deleted": None, "inferred": None,
              "wide": False}
    with pytest.raises(Refusal) as refused:
        answer_command(instance.root, tool, search, values)
    assert refused.value.code == "not-synced"


def test_a_twins_help_order_names_each_of_its_values_once() -> None:
    for tool, t in every_twin():
        if t.order:
            names = [p.name for p in command_params(tool, t)] + ["instance"]
            assert sorted(t.order) == sorted(names), t.command


def test_inspect_and_branch_take_inferred_as_get_artifact_does() -> None:
    for command in ("inspect", "branch"):
        tool, cli = twin(command)
        params = {p.name: p for p in command_params(tool, cli)}
        assert params["inferred"].flags == ("--inferred",) and params["inferred"].default is None
        values = {p.name: p.default for p in command_params(tool, cli)}
        values.update({"artifact_id": "STORY-0001", "inferred": "all"})
        assert tool_arguments(tool, cli, values)["inferred"] == "all"
