"""Frontmatter read leniently: repairs with a clear meaning, each one said."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.connectors.lenient_yaml import (
    decode_lenient,
    line_pairs,
    quote_reserved,
    read_lenient,
)
from revetly_core.markdown.frontmatter import FrontmatterError


def test_strict_yaml_needs_no_assumption() -> None:
    fm = read_lenient("---\nid: BACK-1\ntitle: x\n---\nbody\n")
    assert fm.data == {"id": "BACK-1", "title": "x"} and fm.assumed == [] and fm.body == "body\n"


def test_an_unquoted_at_value_is_read_as_text_and_said() -> None:
    fm = read_lenient("---\nid: BACK-1\nassignee: @sam\n---\n")
    assert fm.data["assignee"] == "@sam"
    assert fm.assumed == ["frontmatter is not strict YAML: read '@sam' as quoted text"]


def test_broken_yaml_falls_back_to_key_value_lines() -> None:
    fm = read_lenient('---\nid: BACK-17\ntitle: Prompt\nassignee: ["@omar"\nlabels:\n  - sync\n---\n')
    assert fm.data["id"] == "BACK-17" and fm.data["labels"] == ["sync"]
    assert "key: value" in fm.assumed[0]


def test_a_file_without_frontmatter_is_all_body() -> None:
    fm = read_lenient("# Title\n\ntext\n")
    assert not fm.present and fm.body.startswith("# Title")


def test_an_unclosed_block_is_refused() -> None:
    with pytest.raises(FrontmatterError):
        read_lenient("---\nid: x\n")


def test_quote_reserved_quotes_list_items_too() -> None:
    text, fixed = quote_reserved("assignee:\n  - @a\n  - b\n")
    assert fixed == ["@a"] and "- '@a'" in text


def test_line_pairs_reads_inline_lists() -> None:
    assert line_pairs("labels: [a, 'b']\n") == {"labels": ["a", "b"]}


@given(st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=20))
def test_any_at_handle_survives_as_text(name: str) -> None:
    fm = read_lenient(f"---\nassignee: @{name}\n---\n")
    assert fm.data["assignee"] == f"@{name}"


def test_text_that_is_not_utf8_is_read_as_latin1_and_said() -> None:
    assert decode_lenient("Café".encode()) == ("Café", None)
    text, assumed = decode_lenient("Café £".encode("latin-1"))
    assert text == "Café £" and assumed == "not UTF-8 text (byte 3): read as Latin-1"
