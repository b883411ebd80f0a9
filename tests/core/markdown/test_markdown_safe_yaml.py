"""load_yaml: the one safe load of untrusted YAML — bounded, and only values JSON can hold."""

from __future__ import annotations

import json
import math
import resource
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.markdown.safe_yaml import (
    MAX_DEPTH,
    MAX_NODES,
    Loader,
    YamlRefused,
    check_bounds,
    json_ready,
    load_document,
    load_yaml,
    may_alias,
)


def code_of(text: str) -> str:
    with pytest.raises(YamlRefused) as info:
        load_yaml(text)
    return info.value.code


def laughs(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_is_refused_before_it_is_built() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert code_of(laughs(10)) == "yaml-bounds"
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 100_000  # an expansion would take gigabytes


def test_a_few_aliases_within_the_bound_are_read() -> None:
    assert load_yaml("a: &x [1, 2]\nb: *x\n") == {"a": [1, 2], "b": [1, 2]}


def test_nesting_past_the_bound_is_refused() -> None:
    assert code_of("x: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)) == "yaml-bounds"
    assert load_yaml("x: " + "[" * 5 + "]" * 5) == {"x": [[[[[]]]]]}


def test_a_recursive_alias_is_refused() -> None:
    assert code_of("a: &a [*a]\n") == "yaml-bounds"


def test_aliases_expanding_past_the_bound_are_refused() -> None:
    many = "a: &a [" + ",".join(["1"] * 100) + "]\nb: [" + ",".join(["*a"] * 101) + "]\n"
    assert code_of(many) == "yaml-bounds"  # 100 values, 101 copies: past MAX_NODES


def test_a_long_block_without_aliases_is_bounded_by_its_size_only() -> None:
    # no alias, no expansion: as many values as the (size-capped) file spells are read
    assert len(load_yaml("[" + ",".join(["1"] * (MAX_NODES + 1)) + "]")) == MAX_NODES + 1


def test_deep_nesting_without_aliases_is_refused_after_the_load() -> None:
    assert code_of("x:\n" + "".join("  " * i + "- \n" for i in range(1, 40)) + "  " * 40 + "- 1\n") \
        in {"yaml-bounds", "bad-yaml"}


@pytest.mark.parametrize("text", [
    "created: 2025-02-30\n",            # the constructor raises ValueError
    "n: " + "7" * 5000 + "\n",          # past Python's int-from-text limit
    "n: 18446744073709551616\n",        # past 2**53
    "w: .nan\n", "w: .inf\n", "w: -.inf\n",
    "1: one\n", "null: x\n", "? [a, b]\n: c\n",
    "b: !!binary aGk=\n", "s: !!set {a, b}\n",
])
def test_values_json_cannot_hold_are_refused(text: str) -> None:
    assert code_of(text) in {"bad-value", "bad-yaml"}


def test_dates_become_iso_text() -> None:
    assert load_yaml("d: 2025-02-28\n") == {"d": "2025-02-28"}


def test_a_syntax_error_is_bad_yaml_naming_the_line() -> None:
    with pytest.raises(YamlRefused) as info:
        load_yaml("a: 1\nb: [\n", first_line=2)
    assert info.value.code == "bad-yaml" and "line" in str(info.value)


def test_check_bounds_reads_events_only() -> None:
    check_bounds("a: 1\nb: [1, 2]\n")  # a plain block passes


def test_json_ready_refuses_a_lone_surrogate() -> None:
    with pytest.raises(YamlRefused):
        json_ready({"t": "\ud800"})


_yaml_ish = st.text(alphabet=st.sampled_from(list("ab:-[]{},&*!?'\"\n .#|>0123456789~\\")),
                    max_size=80)


@given(st.one_of(_yaml_ish, st.text(max_size=80)))
def test_any_text_loads_to_json_or_is_refused(text: str) -> None:
    try:
        value: Any = load_yaml(text)
    except YamlRefused as exc:
        assert exc.code in {"bad-yaml", "bad-value", "yaml-bounds"}
        return
    json.dumps(value, allow_nan=False).encode("utf-8")  # JSON holds whatever was loaded


def test_only_a_block_that_may_alias_is_walked_first() -> None:
    assert may_alias("a: &x 1\nb: *x\n") and may_alias("title: R&D\n")
    assert not may_alias("id: STORY-1\ntitle: plain\n")


# -- the plain build is PyYAML's build ---------------------------------------------------------

_YAML_PIECES = st.sampled_from([
    "id: STORY-1\n", "title: a title\n", "title: 'quoted: yes'\n", "n: 12\n", "n: 0x1F\n",
    "n: 1_000\n", "t: 1:20\n", "f: 1.5e3\n", "f: .nan\n", "f: -.inf\n", "b: yes\n", "b: Off\n",
    "z: ~\n", "z: null\n", "d: 2025-07-23\n", "d: 2025-02-30\n", "d: 2025-13-01\n",
    "d: 2025-07-23 12:00:00+02:00\n", "l: [a, 1, no]\n", "l:\n  - x\n  - {k: v}\n",
    "m:\n  k: v\n  n: 2\n", "m: {a: [1, [2, [3]]]}\n", "? [a, b]\n: c\n", "{x: 1}: y\n",
    "1: one\n", "true: t\n", "2025-01-01: d\n", "a: &x {k: v}\n", "b: *x\n", "<<: {k: w}\n",
    "s: !!str 12\n", "s: !!str [a]\n", "m2: !!map {a: 1}\n", "e: =\n", "p: !!python/none\n",
    "k: v\nk: w\n", "- item\n", "plain text\n", "'q'\n", "key: |\n  block\n  text\n",
    "x: [1, 2\n", "bad: : :\n", "\t: tab\n", "n: 99999999999999999999999\n", "o: 0o17\n",
    "o: 017\n", "bin: 0b101\n", "deep: " + "[" * 40 + "]" * 40 + "\n", "", "---\n", "...\n",
])


def _outcome(load: Callable[[], object]) -> tuple[str, object]:
    try:
        return "value", load()
    except Exception as exc:  # the comparison is of the failure too: its type and message
        return type(exc).__name__, str(exc)


def _same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN (a float PyYAML builds for .nan)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@given(st.lists(_YAML_PIECES, max_size=8))
@settings(max_examples=600, deadline=None)
def test_the_plain_build_gives_what_pyyaml_builds_or_fails_as_it_fails(pieces: list[str]) -> None:
    text = "".join(pieces)
    mine = _outcome(lambda: load_document(text))
    theirs = _outcome(lambda: yaml.load(text, Loader=Loader))
    assert mine[0] == theirs[0]
    assert _same(mine[1], theirs[1])


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.dates(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=20))
@settings(max_examples=300, deadline=None)
def test_the_plain_build_reads_back_what_pyyaml_dumps(value: object) -> None:
    text = yaml.safe_dump(value)
    assert _same(load_document(text), yaml.load(text, Loader=Loader))
