"""split_frontmatter: the YAML block and the body of an instance file."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.markdown.frontmatter import FrontmatterError, split_frontmatter


def test_splits_frontmatter_and_body() -> None:
    data, body = split_frontmatter("---\nid: STORY-1\ntitle: Hi\n---\n\n# Hi\n\ntext\n")
    assert data == {"id": "STORY-1", "title": "Hi"}
    assert body == "\n# Hi\n\ntext\n"


def test_a_byte_order_mark_and_crlf_lines_are_fine() -> None:
    data, body = split_frontmatter("\ufeff---\r\nid: STORY-1\r\n---\r\nbody\r\n")
    assert data == {"id": "STORY-1"}
    assert body == "body\r\n"


def test_the_block_may_close_with_dots() -> None:
    data, body = split_frontmatter("---\nid: STORY-1\n...\nbody\n")
    assert data == {"id": "STORY-1"}
    assert body == "body\n"


def test_only_the_first_closing_line_ends_the_block() -> None:
    data, body = split_frontmatter("---\na: 1\n---\nbody\n---\nmore\n")
    assert data == {"a": 1}
    assert body == "body\n---\nmore\n"


def test_an_empty_block_is_an_empty_mapping() -> None:
    assert split_frontmatter("---\n---\n") == ({}, "")
    assert split_frontmatter("---\n# only a comment\n---\nx") == ({}, "x")


def test_dates_become_iso_strings_at_every_depth() -> None:
    data, _ = split_frontmatter(
        "---\ncreated: 2024-01-02\nat: 2024-01-02T03:04:05Z\nnested:\n  - {when: 2023-05-06}\n---\n")
    assert data["created"] == "2024-01-02"
    assert data["at"].startswith("2024-01-02T03:04:05")
    assert data["nested"] == [{"when": "2023-05-06"}]


@pytest.mark.parametrize("block", ["1: one\n", "2.5: two\n", "null: three\n", "yes: four\n",
                                   "a:\n  2024-01-01: five\n"])
def test_a_key_that_is_not_text_is_refused(block: str) -> None:
    # JSON keys are text: a key YAML reads as a number, null, boolean or date is refused, not
    # renamed (1 and "1" would otherwise be one key)
    with pytest.raises(FrontmatterError, match="is not text") as info:
        split_frontmatter(f"---\n{block}---\n")
    assert info.value.code == "bad-value"


def test_a_quoted_key_is_text() -> None:
    assert split_frontmatter("---\n'1': one\n---\n")[0] == {"1": "one"}


@pytest.mark.parametrize("text", ["", "no frontmatter\n", "# Title\n---\na: 1\n---\n",
                                  " ---\na: 1\n---\n", "--- \na: 1\n---\n", "---"])
def test_a_file_that_does_not_open_with_a_block_is_refused(text: str) -> None:
    with pytest.raises(FrontmatterError, match="does not open"):
        split_frontmatter(text)


@pytest.mark.parametrize("text", ["---\n", "---\na: 1\n", "---\na: 1\nbody without a close\n",
                                  "---\na: 1\n ---\n", "---\na: 1\n----\n"])
def test_an_unclosed_block_is_refused(text: str) -> None:
    with pytest.raises(FrontmatterError, match="never closed"):
        split_frontmatter(text)


@pytest.mark.parametrize("text", ["---\n- a\n- b\n---\n", "---\njust text\n---\n", "---\n42\n---\n"])
def test_a_block_that_is_not_a_mapping_is_refused(text: str) -> None:
    with pytest.raises(FrontmatterError, match="not a mapping"):
        split_frontmatter(text)


def test_invalid_yaml_is_refused_naming_the_file_line() -> None:
    text = "---\nid: STORY-1\ntitle: a: b\ntype: story\n---\n"
    #        line 1  line 2      line 3 (the bad one)
    with pytest.raises(FrontmatterError) as info:
        split_frontmatter(text)
    message = str(info.value)
    assert "not valid YAML" in message
    assert "line 3" in message


def test_invalid_yaml_names_the_later_line_too() -> None:
    text = "---\nid: STORY-1\ntitle: ok\ntype: story\nowner: x\ncites: [a, b\nparent: y\n---\n"
    with pytest.raises(FrontmatterError) as info:
        split_frontmatter(text)
    assert "line 7" in str(info.value) or "line 8" in str(info.value)


# -- round trip over generated mappings ---------------------------------------------------------

_text = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=30)
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False), _text,
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(_text, inner, max_size=4)),
    max_leaves=12,
)
_mappings = st.dictionaries(_text, _values, max_size=8)
_bodies = st.text(max_size=200)


@given(_mappings, _bodies, st.booleans())
def test_any_mapping_dumped_as_yaml_round_trips(
    data: dict[str, Any], body: str, flow: bool
) -> None:
    # allow_unicode=False: PyYAML itself does not round-trip a raw U+0085 it emits unescaped
    block = yaml.safe_dump(data, sort_keys=False, allow_unicode=False,
                           default_flow_style=flow) if data else ""
    text = f"---\n{block}---\n{body}"
    parsed, rest = split_frontmatter(text)
    assert parsed == data
    assert rest == body


_printable = st.text(alphabet=st.characters(whitelist_categories=["L", "N", "Zs", "P", "S"]),
                     max_size=30)


@given(st.dictionaries(_printable, st.one_of(_printable, st.lists(_printable, max_size=3)),
                       max_size=8), _bodies)
def test_unicode_text_written_raw_round_trips(data: dict[str, Any], body: str) -> None:
    block = yaml.safe_dump(data, sort_keys=False, allow_unicode=True) if data else ""
    text = f"---\n{block}---\n{body}"
    parsed, rest = split_frontmatter(text)
    assert parsed == data
    assert rest == body


@given(st.dictionaries(st.from_regex(r"[a-z_]{1,10}", fullmatch=True), _values, max_size=6),
       _bodies)
def test_round_trip_with_crlf_line_ends(data: dict[str, Any], body: str) -> None:
    block = yaml.safe_dump(data, sort_keys=True, allow_unicode=False) if data else ""
    text = "---\r\n" + block.replace("\n", "\r\n") + "---\r\n" + body
    parsed, rest = split_frontmatter(text)
    assert parsed == data
    assert rest == body
