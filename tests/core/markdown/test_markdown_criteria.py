"""Acceptance criteria: the list under '## Acceptance criteria', and criterion fingerprints."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.markdown.criteria import (
    ParsedCriteria,
    criteria_fingerprint,
    criteria_section,
    parse_criteria,
)

# A criterion: words of printable, non-space characters separated by single spaces. The first
# word never looks like a list marker or a heading once the item's own marker is stripped off,
# which the parser would rightly read differently.
_word = st.text(
    alphabet=st.characters(whitelist_categories=["L", "N", "P", "S"], blacklist_characters="`#"),
    min_size=1, max_size=12,
)
_criterion = st.lists(_word, min_size=1, max_size=8).map(" ".join)
_criteria = st.lists(_criterion, min_size=1, max_size=8)
_plain_word = st.from_regex(r"[A-Za-z][a-z]{0,9}", fullmatch=True)
_plain_criterion = st.lists(_plain_word, min_size=1, max_size=10).map(" ".join)
_markers = st.sampled_from(["-", "*", "1.", "1)", "12.", "3)"])


def body_with(lines: list[str], *, heading: str = "## Acceptance criteria",
              before: str = "# Story\n\nSome prose.\n", after: str = "") -> str:
    return f"{before}\n{heading}\n\n" + "\n".join(lines) + "\n" + after


@given(_criteria)
def test_dash_items_parse_back_exactly(criteria: list[str]) -> None:
    parsed = parse_criteria(body_with([f"- {c}" for c in criteria]))
    assert parsed.items == tuple(criteria)
    assert parsed.heading and not parsed.unparsed


@given(_criteria, _markers)
def test_every_marker_style_parses_back_exactly(criteria: list[str], marker: str) -> None:
    parsed = parse_criteria(body_with([f"{marker} {c}" for c in criteria]))
    assert parsed.items == tuple(criteria)


@given(st.lists(st.tuples(_markers, _criterion), min_size=1, max_size=8))
def test_mixed_markers_parse_back_exactly(items: list[tuple[str, str]]) -> None:
    parsed = parse_criteria(body_with([f"{m} {c}" for m, c in items]))
    assert parsed.items == tuple(c for _m, c in items)


@given(_criteria, st.sampled_from(["", " ", "  ", "   "]), st.sampled_from([" ", "  ", "\t"]),
       st.sampled_from(["", " ", "  \t"]))
def test_indent_and_padding_are_stripped(
    criteria: list[str], indent: str, gap: str, trail: str
) -> None:
    parsed = parse_criteria(body_with([f"{indent}-{gap}{c}{trail}" for c in criteria]))
    assert parsed.items == tuple(criteria)


@given(st.lists(st.lists(_plain_criterion, min_size=1, max_size=3), min_size=1, max_size=6),
       st.sampled_from(["", "  ", "    ", "\t"]))
def test_wrapped_lines_rejoin_into_their_criterion(
    wrapped: list[list[str]], indent: str
) -> None:
    lines: list[str] = []
    for first, *rest in wrapped:
        lines.append(f"- {first}")
        lines.extend(f"{indent}{part}" for part in rest)
    parsed = parse_criteria(body_with(lines))
    assert parsed.items == tuple(" ".join(parts) for parts in wrapped)


@given(_criteria)
def test_blank_lines_between_items_are_fine(criteria: list[str]) -> None:
    parsed = parse_criteria(body_with(["\n".join([f"1. {c}", ""]) for c in criteria]))
    assert parsed.items == tuple(criteria)


@given(_criteria, _criteria)
def test_the_section_ends_at_the_next_heading_of_its_level(
    criteria: list[str], later: list[str]
) -> None:
    after = "\n## Notes\n\n" + "\n".join(f"- {c}" for c in later) + "\n"
    parsed = parse_criteria(body_with([f"- {c}" for c in criteria], after=after))
    assert parsed.items == tuple(criteria)


def test_a_deeper_heading_stays_inside_the_section() -> None:
    body = body_with(["- one", "", "### Edge cases", "", "- two"], after="\n# Next\n\n- three\n")
    assert parse_criteria(body).items == ("one", "two")


@pytest.mark.parametrize("heading", ["## Acceptance criteria", "# Acceptance Criteria",
                                     "### acceptance-criteria:", "## ACCEPTANCE CRITERIA ##",
                                     "###### Acceptance   criteria"])
def test_heading_spellings(heading: str) -> None:
    assert parse_criteria(body_with(["- one"], heading=heading)).items == ("one",)


@pytest.mark.parametrize("heading", ["## Criteria", "## Acceptance", "Acceptance criteria",
                                     "##Acceptance criteria", "## Acceptance criteria for v2"])
def test_other_headings_are_not_the_criteria_section(heading: str) -> None:
    parsed = parse_criteria(body_with(["- one"], heading=heading))
    assert parsed == ParsedCriteria((), False)
    assert not parsed.unparsed


def test_no_heading_means_no_criteria_and_not_unparsed() -> None:
    parsed = parse_criteria("# Story\n\n- a list\n- that is not criteria\n")
    assert parsed.items == ()
    assert parsed.heading is False
    assert parsed.unparsed is False


@pytest.mark.parametrize("lines", [[], ["Some prose under the heading."], ["", "  ", ""],
                                   ["-", "1."], ["-nospace"]])
def test_a_heading_with_no_items_is_unparsed(lines: list[str]) -> None:
    parsed = parse_criteria(body_with(lines))
    assert parsed.items == ()
    assert parsed.heading is True
    assert parsed.unparsed is True


def test_a_heading_at_the_very_end_is_unparsed() -> None:
    assert parse_criteria("# Story\n\n## Acceptance criteria").unparsed


def test_prose_before_the_first_item_is_not_a_criterion() -> None:
    body = body_with(["The story is done when:", "- one", "- two"])
    assert parse_criteria(body).items == ("one", "two")


def test_a_heading_inside_a_code_fence_is_not_the_section() -> None:
    body = "# Story\n\n```\n## Acceptance criteria\n- fake\n```\n"
    assert parse_criteria(body) == ParsedCriteria((), False)


def test_a_heading_inside_a_fence_does_not_end_the_section() -> None:
    body = body_with(["- one", "", "```", "## not a heading", "```", "", "- two"])
    assert parse_criteria(body).items == ("one", "two")


def test_list_lines_inside_a_code_fence_are_not_criteria() -> None:
    # e.g. a YAML sample under the criteria: the fence is code, as criteria_section already
    # treats it for headings
    body = body_with(["- The export matches the sample", "", "```yaml", "- id: 1", "- id: 2",
                      "```", "", "- Amounts keep two decimals"])
    assert parse_criteria(body).items == ("The export matches the sample",
                                          "Amounts keep two decimals")


def test_the_last_criteria_section_wins() -> None:
    body = body_with(["- old"]) + "\n## Acceptance criteria\n\n- new one\n- new two\n"
    assert parse_criteria(body).items == ("new one", "new two")


def test_criteria_section_is_the_line_span_of_the_content() -> None:
    body = "# T\n## Acceptance criteria\n- a\n- b\n## Next\n"
    assert criteria_section(body) == (2, 4)
    assert criteria_section("# T\n") is None


# -- fingerprints -----------------------------------------------------------------------------


def _reference_fp(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).casefold().encode("utf-8")).hexdigest()[:8]


@given(st.text(max_size=200))
def test_fingerprint_is_sha1_of_collapsed_casefolded_text(text: str) -> None:
    fp = criteria_fingerprint(text)
    assert fp == _reference_fp(text)
    assert len(fp) == 8 and all(c in "0123456789abcdef" for c in fp)


@given(st.lists(_plain_word, min_size=1, max_size=6),
       st.lists(st.sampled_from([" ", "  ", "\t", "\n"]), min_size=6, max_size=6))
def test_fingerprint_ignores_spacing_and_case(words: list[str], gaps: list[str]) -> None:
    spaced = "".join(w + g for w, g in zip(words, gaps, strict=False))
    assert criteria_fingerprint(f"  {spaced}  ") == criteria_fingerprint(" ".join(words).upper())


def test_fingerprint_known_value() -> None:
    assert criteria_fingerprint("A CSV holds  one row per invoice") == hashlib.sha1(
        b"a csv holds one row per invoice").hexdigest()[:8]
    assert criteria_fingerprint("Straße") == criteria_fingerprint("STRASSE")


_HEADING_REF = __import__("re").compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@given(st.lists(st.sampled_from([
    "## Acceptance criteria", " ## Acceptance criteria", "#Acceptance criteria", "# Notes",
    "### Acceptance-Criteria:", "- one", "  * two", "```", "text", "", "#### deeper", "\t# tab",
]), max_size=14))
def test_only_lines_opening_with_a_hash_are_read_as_headings(lines: list[str]) -> None:
    """The section is found by looking only at lines that start with '#' (the heading pattern
    anchors there), so it agrees with matching the pattern against every line."""
    body = "\n".join(lines)
    every = [i for i, line in enumerate(body.splitlines()) if _HEADING_REF.match(line)]
    assert all(body.splitlines()[i].startswith("#") for i in every)
    section = criteria_section(body)
    if section is not None:
        assert section[0] - 1 in every
