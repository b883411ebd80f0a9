"""plain_block: the common frontmatter shape read line by line, to what load_yaml gives."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.markdown.frontmatter import load_mapping
from revetly_core.markdown.plain_block import (
    block_scalar,
    flow_list,
    plain_block,
    plain_key,
    plain_scalar,
    quoted_scalar,
)
from revetly_core.markdown.safe_yaml import YamlRefused, load_yaml

TYPICAL = (
    'id: BUG-0101\ntitle: "Assigned tresnexer looks noisy on deployed"\ntype: bug\n'
    "status: done\nparent: EPIC-0048\ncreated: 2024-11-21\nupdated: 2025-03-17\n"
    "cites: [STORY-0026, 'x y']\ntags:\n  - alpha\n  - 12\n"
)


def _full(text: str) -> tuple[str, Any]:
    """What load_yaml gives: ('value', v) or ('refused', code)."""
    try:
        return "value", load_yaml(text, first_line=2)
    except YamlRefused as exc:
        return "refused", exc.code


def _exact(value: Any) -> str:
    """A spelling that tells True from 1 and 1.0 from 1, and keeps key order."""
    return repr(value) + json.dumps(value)


def test_the_typical_block_is_read_line_by_line_to_what_pyyaml_builds() -> None:
    got = plain_block(TYPICAL)
    assert got is not None
    assert _exact(got) == _exact(load_yaml(TYPICAL))
    assert got["created"] == "2024-11-21" and got["tags"] == ["alpha", 12]


def test_plain_scalars_are_typed_by_pyyamls_resolver() -> None:
    assert plain_scalar("yes") is True and plain_scalar("Off") is False
    assert plain_scalar("0x1F") == 31 and plain_scalar("1:20") == 80
    assert plain_scalar("~") is None and plain_scalar("2025-07-23") == "2025-07-23"
    assert plain_scalar("STORY-1") == "STORY-1"


def test_a_scalar_that_fails_to_build_leaves_the_block_to_pyyaml() -> None:
    for text in ("d: 2025-02-30\n", "f: .nan\n", "n: 99999999999999999999\n"):
        assert plain_block(text) is None
        assert _full(text)[0] == "refused"


def test_only_one_line_quoted_scalars_without_escapes_are_read() -> None:
    assert quoted_scalar('"a: b # c"') == "a: b # c" and quoted_scalar("'x'") == "x"
    assert quoted_scalar("plain") is None
    assert plain_block('t: "a \\" b"\n') is None and plain_block("t: 'it''s'\n") is None


def test_plain_values_with_comments_separators_or_indicators_are_left_to_pyyaml() -> None:
    for text in ("t: a # c\n", "t: a: b\n", "t: a:\n", "t: &x a\n", "t: *x\n", "t: !!str 1\n",
                 "t: |\n  x\n", "t: {a: 1}\n", "t: -1\n"):
        assert plain_block(text) is None, text


def test_block_scalars_keep_inner_brackets_and_quotes() -> None:
    assert block_scalar("Fix [x], it's done") == "Fix [x], it's done"


def test_flow_lists_of_simple_items_are_read() -> None:
    assert flow_list("[]") == [] and flow_list("[a, 1, no, 'q r']") == ["a", 1, False, "q r"]
    assert plain_block("l: [a, [b]]\n") is None and plain_block("l: [a,]\n") is None


def test_keys_typed_other_than_text_leave_the_block_to_pyyaml() -> None:
    assert plain_key("status") == "status"
    assert plain_block("yes: 1\n") is None and plain_block("null: x\n") is None


def test_a_block_list_keeps_one_indent() -> None:
    assert plain_block("l:\n  - a\n  - b\n") == {"l": ["a", "b"]}
    assert plain_block("l:\n  - a\n    - b\n") is None
    assert plain_block("l:\n  - a\n  k: v\n") is None


def test_other_shapes_and_characters_are_left_to_pyyaml() -> None:
    for text in ("", "# only a comment\n", "- a\n", "m:\n  k: v\n", "t: a\n  more\n",
                 "t: a\r\n", "t:\ta\n", "t: a\u2028b\n", "t: \ufeffa\n", "? k\n: v\n"):
        assert plain_block(text) is None, repr(text)


def test_load_mapping_reads_the_common_shape_as_before() -> None:
    assert _exact(load_mapping(TYPICAL)) == _exact(load_yaml(TYPICAL))


_KEYS = st.sampled_from(["id", "title", "type", "k", "k", "yes", "null", "on", "a-b", "_x", "2"])
_VALUES = st.sampled_from([
    "", " ", "STORY-1", "a title", "Fix [x], now", "it's", "a:b", "a: b", "a:", "a #c", "a#b",
    "yes", "No", "~", "null", "12", "-3", "0x1F", "0o17", "017", "1_000", "1:20", "1.5e3", ".5",
    ".nan", "-.inf", "2025-07-23", "2025-02-30", "2025-07-23 12:00:00+02:00", "99999999999999999999",
    '"q"', '"a \\" b"', "'s'", "'it''s'", '""', "[]", "[a, 1, no]", "[a, [b]]", "[a,]", "[ a ,b ]",
    "['x, y']", '["p", q r]', "[1:20, 2025-01-01]", "{a: 1}", "&x a", "*x", "!!str 1", "|", ">",
    "%x", "@x", "`x`", "-", "- a", "? a", "é à", "\u00a0x\u00a0", "\U0001f600", "=", "<<",
])
_LINE = st.one_of(
    st.tuples(_KEYS, _VALUES).map(lambda kv: f"{kv[0]}:{' ' if kv[1] else ''}{kv[1]}\n"),
    st.tuples(st.sampled_from([" ", "  ", "   "]), _VALUES).map(lambda iv: f"{iv[0]}- {iv[1]}\n"),
    st.sampled_from(["\n", "  \n", "# c\n", "  k: v\n", "  more\n", "- top\n", "k:\n", "k:  \n"]),
)


def assert_read_as_load_yaml(text: str) -> None:
    """A block the line reader takes gives load_yaml's value, types and key order included."""
    got = plain_block(text)
    if got is not None:
        assert _full(text) == ("value", got)
        assert _exact(got) == _exact(_full(text)[1])


@given(st.lists(_LINE, max_size=10))
@settings(max_examples=1500, deadline=None)
def test_a_block_read_line_by_line_is_what_load_yaml_gives(lines: list[str]) -> None:
    assert_read_as_load_yaml("".join(lines))


@given(st.text(alphabet=st.sampled_from(list("ab:-[]{},&*!?'\"\n .#|>0123456789~\\é\t\r")),
               max_size=60))
@settings(max_examples=1000, deadline=None)
def test_any_text_read_line_by_line_is_what_load_yaml_gives(text: str) -> None:
    got = plain_block(text)
    if got is not None:
        assert _exact(got) == _exact(_full(text)[1])


_ENTRY = st.one_of(
    st.tuples(_KEYS, _VALUES).map(lambda kv: f"{kv[0]}: {kv[1]}\n"),
    st.tuples(_KEYS, st.sampled_from([" ", "  ", "    "]), st.lists(_VALUES, max_size=3)).map(
        lambda e: f"{e[0]}:\n" + "".join(f"{e[1]}- {v}\n" for v in e[2])),
)


@given(st.lists(_ENTRY, max_size=8))
@settings(max_examples=1500, deadline=None)
def test_a_mapping_of_entries_read_line_by_line_is_what_load_yaml_gives(entries: list[str]) -> None:
    assert_read_as_load_yaml("".join(entries))
