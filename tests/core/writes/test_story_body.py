"""One list of criteria: the folding rule, refusals naming the first differing line, repair."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.markdown.criteria import doubled_criteria, parse_criteria
from revetly_core.writes.story_body import (
    fold_criteria,
    render_story_body,
    repair_doubled,
)

from revetly_core import Refusal

CRIT = ["One row per invoice", "Two decimals"]


def test_no_section_is_left_alone() -> None:
    assert fold_criteria("Just prose.\n", CRIT) == "Just prose.\n"


def test_identical_trailing_section_is_folded() -> None:
    desc = "Prose.\n\n## Acceptance criteria\n\n- One row per invoice\n- Two decimals\n"
    body = render_story_body(desc, CRIT)
    assert body.count("## Acceptance criteria") == 1
    assert list(parse_criteria(body).items) == CRIT


def test_folding_ignores_marker_style_and_spacing() -> None:
    desc = "Prose.\n\n## Acceptance Criteria\n\n1. One  row per invoice\n* Two decimals\n\n"
    assert fold_criteria(desc, CRIT).rstrip() == "Prose."


def test_differing_section_is_refused_naming_the_line() -> None:
    desc = "Prose.\n\n## Acceptance criteria\n\n- One row per invoice\n- Three decimals\n"
    with pytest.raises(Refusal) as exc:
        fold_criteria(desc, CRIT)
    assert exc.value.code == "criteria-differ"
    assert exc.value.extra["criteria_line"] == 2
    assert "Three decimals" in exc.value.detail


def test_shorter_section_is_refused() -> None:
    desc = "Prose.\n\n## Acceptance criteria\n\n- One row per invoice\n"
    with pytest.raises(Refusal) as exc:
        fold_criteria(desc, CRIT)
    assert exc.value.extra["criteria_line"] == 2


def test_section_that_is_not_last_is_refused() -> None:
    desc = "Prose.\n\n## Acceptance criteria\n\n- One row per invoice\n- Two decimals\n\n## Notes\n\nx\n"
    with pytest.raises(Refusal) as exc:
        fold_criteria(desc, CRIT)
    assert exc.value.code == "criteria-not-last"


def test_section_inside_a_code_fence_is_prose() -> None:
    desc = "Example:\n\n```\n## Acceptance criteria\n- x\n```\n"
    assert fold_criteria(desc, CRIT) == desc


def test_repair_keeps_the_last_list_and_moves_nothing_else() -> None:
    body = ("Intro.\n\n## Acceptance criteria\n\n- old one\n\n## Design\n\nKeep me.\n\n"
            "## Acceptance criteria\n\n- One row per invoice\n- Two decimals\n")
    assert doubled_criteria(body)
    fixed = repair_doubled(body)
    assert not doubled_criteria(fixed)
    assert "old one" not in fixed and "Keep me." in fixed
    assert list(parse_criteria(fixed).items) == CRIT
    assert fixed.index("Intro.") < fixed.index("## Design") < fixed.index("Keep me.")


_line = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd"),
                                      whitelist_characters=" "), min_size=1, max_size=30)


@given(st.lists(_line.filter(lambda s: s.strip()), min_size=1, max_size=6), _line)
def test_rendered_body_reads_back_the_criteria_once(criteria: list[str], prose: str) -> None:
    criteria = [" ".join(c.split()) for c in criteria]
    body = render_story_body(prose, criteria)
    assert list(parse_criteria(body).items) == criteria
    again = render_story_body(body, criteria)  # an agent echoing the body it read back
    assert again == body
