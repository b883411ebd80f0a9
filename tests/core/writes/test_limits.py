"""Ids and texts are checked before any path is built from them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.writes.limits import (
    MAX_ID_CHARS,
    MAX_TITLE_CHARS,
    check_artifact_id,
    check_list,
    check_text,
)

from revetly_core import Refusal


@given(st.text(max_size=80))
def test_an_accepted_id_is_always_a_safe_file_name(value: str) -> None:
    try:
        got = check_artifact_id(value)
    except Refusal as exc:
        assert exc.code == "bad-id"
        return
    assert "/" not in got and "\\" not in got and ".." not in got and "\x00" not in got
    assert len(got) <= MAX_ID_CHARS and got.split("-")[1].isdigit()


@pytest.mark.parametrize("value", ["STORY-1", "story-0001", "TASK-123456"])
def test_plain_ids_pass(value: str) -> None:
    assert check_artifact_id(value) == value


def test_oversized_title_names_its_limit() -> None:
    with pytest.raises(Refusal) as exc:
        check_text("t" * (MAX_TITLE_CHARS + 1), "title", MAX_TITLE_CHARS)
    assert exc.value.extra == {"field": "title", "limit": MAX_TITLE_CHARS}


def test_lists_have_a_limit_and_a_type() -> None:
    assert check_list(None, "x") == []
    with pytest.raises(Refusal):
        check_list("STORY-1", "related_ids")
    with pytest.raises(Refusal) as exc:
        check_list(list(range(101)), "related_ids")
    assert exc.value.extra["limit"] == 100
