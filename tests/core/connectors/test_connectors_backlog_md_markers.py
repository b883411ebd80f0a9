"""Backlog.md's AC and Definition of Done markers, and the plain checklist files kept before them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.connectors.backlog_md_markers import (
    CheckItem,
    acceptance_criteria,
    check_item,
    definition_of_done,
    marker_name,
    without_markers,
)

BODY = """## Description

Export the week.

## Acceptance Criteria
<!-- AC:BEGIN -->
- [ ] #1 Columns are date and minutes
- [x] #2 Notes with commas are quoted
<!-- AC:END -->

## Definition of Done
<!-- DOD:BEGIN -->
- [x] #1 Tests pass
<!-- DOD:END -->
"""


def test_criteria_come_from_between_the_ac_markers_with_their_checked_state() -> None:
    items, from_markers = acceptance_criteria(BODY)
    assert from_markers
    assert items == [CheckItem(1, "Columns are date and minutes", False),
                     CheckItem(2, "Notes with commas are quoted", True)]


def test_definition_of_done_is_read_the_same_way() -> None:
    assert definition_of_done(BODY) == [CheckItem(1, "Tests pass", True)]


def test_a_marker_quoted_inside_a_sentence_is_not_a_marker() -> None:
    body = ("The `<!-- AC:BEGIN -->` comment starts the list.\n- [ ] #1 not a criterion\n"
            "and this one neither: <!-- AC:END -->.\n")
    assert marker_name("The `<!-- AC:BEGIN -->` comment") is None
    assert acceptance_criteria(body) == ([], False)


def test_a_file_without_markers_keeps_its_checklist_under_the_heading() -> None:
    body = "## Acceptance Criteria\n\n- [ ] Toggl projects become activities\n- [x] Counts\n"
    items, from_markers = acceptance_criteria(body)
    assert not from_markers
    assert [(i.text, i.checked) for i in items] == [
        ("Toggl projects become activities", False), ("Counts", True)]


def test_check_item_reads_number_text_and_state() -> None:
    assert check_item("- [X] #12 Done thing") == CheckItem(12, "Done thing", True)
    assert check_item("- [ ] no number") == CheckItem(None, "no number", False)
    assert check_item("plain prose") is None


def test_without_markers_drops_marker_lines_only() -> None:
    out = without_markers(BODY)
    assert "<!--" not in out
    assert "- [x] #2 Notes with commas are quoted" in out


@given(st.lists(st.tuples(st.booleans(), st.text(
    st.characters(whitelist_categories=("L", "N"), max_codepoint=0x2FF), min_size=1,
    max_size=30)), min_size=1, max_size=8))
def test_any_checklist_between_markers_round_trips(items: list[tuple[bool, str]]) -> None:
    lines = [f"- [{'x' if c else ' '}] #{n} {t}" for n, (c, t) in enumerate(items, start=1)]
    body = "\n".join(["<!-- AC:BEGIN -->", *lines, "<!-- AC:END -->"])
    parsed, _ = acceptance_criteria(body)
    assert [(i.number, i.text, i.checked) for i in parsed] == [
        (n, t, c) for n, (c, t) in enumerate(items, start=1)]
