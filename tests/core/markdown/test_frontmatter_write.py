"""Frontmatter is written through the schema that reads it, and reads back as written."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.markdown.frontmatter import (
    FrontmatterError,
    check_writable,
    join_frontmatter,
    split_frontmatter,
)
from revetly_core.refusal import Refusal
from revetly_core.writes.instance_files import render_markdown

TEXT = st.text(st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=30).filter(
    lambda s: s.strip() == s and s != "")
EXTRA = st.dictionaries(st.from_regex(r"x_[a-z]{1,8}", fullmatch=True),
                        st.none() | st.booleans() | st.integers(-10**6, 10**6) | TEXT, max_size=4)


@given(TEXT, TEXT, EXTRA, st.text(max_size=60))
def test_a_written_file_reads_back_as_written(aid: str, title: str, extra: dict[str, object],
                                              body: str) -> None:
    front = {"id": aid, "title": title, "type": "decision", **extra}
    got, rest = split_frontmatter(join_frontmatter(front, body))
    assert got == front
    assert rest == "\n" + body.lstrip("\n")


def test_keys_keep_their_order() -> None:
    text = join_frontmatter({"type": "story", "id": "STORY-0001", "title": "T"}, "")
    assert text.splitlines()[1:4] == ["type: story", "id: STORY-0001", "title: T"]


def test_frontmatter_the_read_schema_refuses_is_not_written() -> None:
    with pytest.raises(FrontmatterError, match="type") as caught:
        join_frontmatter({"id": "X-1", "title": "T", "type": "no-such-type"}, "body")
    assert caught.value.code == "schema"


def test_a_valid_front_passes_the_write_check() -> None:
    check_writable({"id": "STORY-0001", "title": "Export", "type": "story", "status": "ready"})


def test_the_writes_refuse_an_unwritable_front_as_internal() -> None:
    with pytest.raises(Refusal) as caught:
        render_markdown({"id": "STORY-0001", "type": "story"}, "body")
    assert caught.value.code == "internal" and "title is required" in caught.value.detail
