"""The three rule predicates compiled into data and evaluated without running generated code."""

from __future__ import annotations

import ast
import inspect
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.governed import lifecycle, proposals, rule_predicates
from revetly_core.governed.guarded_tools import canonical_json
from revetly_core.governed.rule_predicates import (
    Approval,
    CompiledRule,
    Equals,
    Present,
    compile_rule,
    evaluate_rule,
    parse_profile_candidate,
    parse_rule_candidate,
    predicate_holds,
    typed_equal,
)

from revetly_core import Refusal
from tests.core.governed.proposal_world import refund_rule

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def rule(*requires: Any, applies_when: tuple[Any, ...] = ()) -> CompiledRule:
    return CompiledRule("issue_refund", tuple(applies_when), tuple(requires))


def test_argument_presence_holds_for_any_value_even_null() -> None:
    assert predicate_holds(Present("reason"), {"reason": None}, approved=False)
    assert not predicate_holds(Present("reason"), {"other": "x"}, approved=False)


def test_approval_required_holds_only_with_an_approval() -> None:
    assert predicate_holds(Approval(), {}, approved=True)
    assert not predicate_holds(Approval(), {"approved": True}, approved=False)


@given(JSON)
def test_typed_equality_holds_for_the_same_value(value: Any) -> None:
    assert typed_equal(json.loads(canonical_json(value)), canonical_json(value))


@given(JSON, JSON)
def test_typed_equality_is_exactly_canonical_json_equality(a: Any, b: Any) -> None:
    assert typed_equal(a, canonical_json(b)) == (canonical_json(a) == canonical_json(b))


@pytest.mark.parametrize(("observed", "expected"), [(1, "1"), (1, True), (1, 1.0), (0, False), ("a", ["a"]),
                                                    (None, "null")])
def test_typed_equality_never_coerces_types(observed: Any, expected: Any) -> None:
    assert not typed_equal(observed, canonical_json(expected))


def test_a_rule_that_does_not_apply_allows() -> None:
    r = rule(Approval(), applies_when=(Equals("tier", canonical_json("large")),))
    assert evaluate_rule(r, "issue_refund", {"tier": "small"}) == "allow"
    assert evaluate_rule(r, "other_tool", {"tier": "large"}) == "allow"


def test_a_missing_argument_denies_and_a_missing_approval_asks_for_one() -> None:
    r = rule(Present("reason"), Approval())
    assert evaluate_rule(r, "issue_refund", {}) == "deny"
    assert evaluate_rule(r, "issue_refund", {"reason": "x"}) == "needs_approval"
    assert evaluate_rule(r, "issue_refund", {"reason": "x"}, approved=True) == "allow"


def test_a_native_veto_always_wins() -> None:
    r = rule(Present("reason"))
    assert evaluate_rule(r, "issue_refund", {"reason": "x"}, native_veto=True) == "deny"
    assert evaluate_rule(r, "other_tool", {}, native_veto=True) == "deny"


def test_a_candidate_compiles_into_data_that_round_trips() -> None:
    compiled = compile_rule(parse_rule_candidate(refund_rule()))
    assert compiled == CompiledRule.from_dict(json.loads(json.dumps(compiled.to_dict())))
    assert compiled.requires == (Present("reason"), Approval())


def test_code_in_a_candidate_is_only_ever_compared() -> None:
    payload = "__import__('os').system('touch /tmp/revetly-pwned')"
    compiled = compile_rule(parse_rule_candidate(refund_rule(
        requires=[{"kind": "argument_equals", "argument": "note", "value": payload}])))
    assert evaluate_rule(compiled, "issue_refund", {"tier": "large", "note": payload}) == "allow"
    assert evaluate_rule(compiled, "issue_refund", {"tier": "large", "note": "x"}) == "deny"


def test_the_compiler_and_interpreter_call_no_eval_exec_or_compile() -> None:
    for module in (rule_predicates, lifecycle, proposals):
        tree = ast.parse(inspect.getsource(module))
        called = {node.func.id for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        assert not called & {"eval", "exec", "compile", "__import__"}, module.__name__


@pytest.mark.parametrize("change", [
    {"requires": []},
    {"requires": [{"kind": "regex", "argument": "x", "pattern": ".*"}]},
    {"tool": "Not A Tool"},
    {"sources": []},
    {"sources": [{"kind": "url", "artifact_id": "DEC-0001"}]},
    {"extra": "field"},
    {"requires": [{"kind": "argument_equals", "argument": "x", "value": "v" * 5000}]},
])
def test_a_malformed_rule_candidate_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(Refusal) as refused:
        parse_rule_candidate(refund_rule(**change))
    assert refused.value.code in ("bad-candidate", "bad_tool_name")


def test_a_profile_is_bounded() -> None:
    good = {"title": "t", "settings": {"lang": "en"}, "sources": [{"kind": "memory", "artifact_id": "DEC-1"}]}
    assert parse_profile_candidate(good).settings == {"lang": "en"}
    for settings in ({}, {f"k{i}": 1 for i in range(33)}, {"Bad Key": 1}, {"lang": "x" * 501},
                     {"nested": {"a": 1}}):
        with pytest.raises(Refusal) as refused:
            parse_profile_candidate({**good, "settings": settings})
        assert refused.value.code == "bad-candidate"
