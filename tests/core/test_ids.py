"""Artifact ids: keys, finding ids in prose (ranges, case, separators) and resolving spellings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.ids import (
    DEFAULT_FAMILIES,
    MAX_RANGE,
    IdFinder,
    IdKey,
    IdResolver,
    id_key,
    is_ascii_id,
    is_id_shaped,
)

FINDER = IdFinder(DEFAULT_FAMILIES)
STORY = "STORY"


def keys(text: str) -> list[IdKey]:
    return FINDER.keys(text)


# -- id_key / is_id_shaped -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "key"),
    [
        ("STORY-12", IdKey("STORY", 12)),
        ("STORY-0012", IdKey("STORY", 12)),
        ("story-12", IdKey("STORY", 12)),
        ("Story_12", IdKey("STORY", 12)),
        ("STORY 12", IdKey("STORY", 12)),
        ("  DEC-7 ", IdKey("DEC", 7)),
        ("A1-3", IdKey("A1", 3)),
    ],
)
def test_id_key_ignores_case_padding_and_separator(written: str, key: IdKey) -> None:
    assert id_key(written) == key


@pytest.mark.parametrize("value", ["STORY", "12", "STORY-", "-12", "STORY-12a", "1STORY-2",
                                   "STORY--12", "STORY-1-2", ""])
def test_id_key_of_a_non_id_is_none(value: str) -> None:
    assert id_key(value) is None


def test_is_id_shaped_wants_canonical_upper_case_with_a_dash() -> None:
    assert is_id_shaped("STORY-0012")
    assert is_id_shaped("A1-3")
    assert not is_id_shaped("story-12")
    assert not is_id_shaped("STORY_12")
    assert not is_id_shaped("STORY 12")
    assert not is_id_shaped("STORY-12x")


@given(st.sampled_from(sorted(DEFAULT_FAMILIES)), st.integers(0, 10**6), st.integers(0, 8),
       st.sampled_from(["-", "_", " "]), st.booleans())
def test_id_key_round_trips_any_spelling(fam: str, n: int, pad: int, sep: str, lower: bool) -> None:
    written = f"{fam}{sep}{n:0{pad}d}"
    assert id_key(written.lower() if lower else written) == IdKey(fam, n)


# -- IdFinder ------------------------------------------------------------------------------------


def test_finds_an_id_in_prose() -> None:
    assert keys("This needs STORY-12 first.") == [IdKey(STORY, 12)]


def test_finds_lower_case_and_mixed_case_ids() -> None:
    assert keys("see story-12 and Story-13") == [IdKey(STORY, 12), IdKey(STORY, 13)]


def test_a_range_expands_to_every_id_in_it() -> None:
    assert keys("STORY-0075..0077") == [IdKey(STORY, 75), IdKey(STORY, 76), IdKey(STORY, 77)]
    assert list(FINDER.spans("STORY-0075..0077")) == [(STORY, 75, 77, 4)]


def test_a_range_may_repeat_the_family_and_space_its_dots() -> None:
    expected = [IdKey(STORY, 1), IdKey(STORY, 2), IdKey(STORY, 3)]
    assert keys("STORY-1..STORY-3") == expected
    assert keys("STORY-1 .. 3") == expected
    assert keys("story-1..story_3") == expected


def test_a_space_or_underscore_separates_family_and_number_only_in_capitals() -> None:
    # The chosen behaviour: "STORY 12" and "STORY_12" name STORY-12; in other cases only the
    # dash counts, so "Dec 12" stays a date and "story 12" plain prose.
    assert keys("as in STORY 12") == [IdKey(STORY, 12)]
    assert keys("as in STORY_12") == [IdKey(STORY, 12)]
    assert keys("as in story-12 and Story-13") == [IdKey(STORY, 12), IdKey(STORY, 13)]
    assert keys("as in story 12") == []
    assert keys("as in Story_12") == []
    assert keys("we met on Dec 12") == []


def test_a_family_glued_to_its_number_is_not_an_id() -> None:
    assert keys("as in STORY12 or story12") == []


@pytest.mark.parametrize("text", ["XSTORY-12", "STORY-12abc", "ASTORY 12",
                                  "DECISION-1", "mySTORY-1", "STORY-"])
def test_ids_glued_to_other_letters_or_digits_are_not_ids(text: str) -> None:
    assert keys(text) == []


def test_a_dash_after_a_number_is_not_a_range() -> None:
    assert keys("STORY-12-14") == [IdKey(STORY, 12)]


def test_punctuation_around_an_id_is_fine() -> None:
    assert keys("(STORY-1), [DEC-2]; BUG-3. TASK-4: EPIC-5!") == [
        IdKey("STORY", 1), IdKey("DEC", 2), IdKey("BUG", 3), IdKey("TASK", 4), IdKey("EPIC", 5)]


def test_a_range_longer_than_the_limit_is_read_as_its_two_ends() -> None:
    last = 1 + MAX_RANGE + 1
    assert keys(f"STORY-1..{last}") == [IdKey(STORY, 1), IdKey(STORY, last)]
    assert keys(f"STORY-1..{1 + MAX_RANGE}") == [IdKey(STORY, n) for n in range(1, 2 + MAX_RANGE)]


def test_a_reversed_range_still_names_its_first_end() -> None:
    assert IdKey(STORY, 14) in keys("STORY-14..12")


def test_a_range_to_another_family_is_its_two_ends() -> None:
    assert keys("STORY-12..DEC-14") == [IdKey(STORY, 12), IdKey("DEC", 14)]


def test_keys_are_unique_and_in_order_of_first_appearance() -> None:
    assert keys("DEC-2 STORY-1 dec-2 STORY-0001 STORY-1..2") == [
        IdKey("DEC", 2), IdKey(STORY, 1), IdKey(STORY, 2)]


def test_only_declared_families_are_found() -> None:
    finder = IdFinder(["REQ"])
    assert finder.keys("REQ-1 and STORY-2") == [IdKey("REQ", 1)]
    assert IdFinder([]).keys("STORY-1") == []


def test_the_longest_family_wins_when_one_prefixes_another() -> None:
    finder = IdFinder(["DE", "DEC"])
    assert finder.keys("DEC-4 DE-5") == [IdKey("DEC", 4), IdKey("DE", 5)]


def test_the_width_of_the_written_number_is_reported() -> None:
    assert list(FINDER.spans("STORY-0012 and STORY-7")) == [(STORY, 12, 12, 4), (STORY, 7, 7, 1)]


_SEPARATORS = st.sampled_from([" ", "\n", "(", ")", ",", ".", ";", ":", "'", '"', "`", "[", "]"])


@given(
    st.sampled_from(sorted(DEFAULT_FAMILIES)),
    st.integers(0, 99_999),
    st.sampled_from(["-", "_", " "]),
    st.booleans(),
    st.text(alphabet=st.characters(whitelist_categories=["Zs", "Po", "Ps", "Pe"]), max_size=6),
    _SEPARATORS,
)
def test_an_id_between_separators_is_always_found(
    fam: str, n: int, sep: str, lower: bool, filler: str, after: str
) -> None:
    lower = lower and sep == "-"  # a space or underscore counts only after a capital family
    written = f"{fam}{sep}{n}"
    text = f"{filler} {written.lower() if lower else written}{after}{filler}"
    assert IdKey(fam, n) in keys(text)


@given(st.sampled_from(sorted(DEFAULT_FAMILIES)), st.integers(0, 9999), st.sampled_from([" ", "_"]))
def test_a_lower_case_family_needs_a_dash(fam: str, n: int, sep: str) -> None:
    assert keys(f"x {fam.lower()}{sep}{n} y") == []
    assert keys(f"x {fam.capitalize()}{sep}{n} y") == []
    assert keys(f"x {fam.lower()}-{n} y") == [IdKey(fam, n)]


@given(st.sampled_from(sorted(DEFAULT_FAMILIES)), st.integers(0, 9999),
       st.sampled_from("abcxyzXYZ019"))
def test_an_id_glued_to_a_letter_or_digit_is_never_found(
    fam: str, n: int, glue: str
) -> None:
    assert keys(f"{glue}{fam}-{n}") == []
    if glue.isalpha():  # a digit after the number only makes it another number
        assert keys(f"{fam}-{n}{glue}") == []


# -- IdResolver ------------------------------------------------------------------------------


def test_resolver_maps_any_spelling_to_the_held_id() -> None:
    r = IdResolver(["STORY-0012", "DEC-3"])
    assert r.resolve(IdKey(STORY, 12)) == "STORY-0012"
    assert r.resolve(id_key("STORY-12")) == "STORY-0012"  # type: ignore[arg-type]
    assert r.resolve(id_key("story_0012")) == "STORY-0012"  # type: ignore[arg-type]
    assert r.resolve(IdKey(STORY, 13)) is None


def test_resolver_spells_unknown_ids_canonically_at_the_written_width() -> None:
    r = IdResolver(["STORY-0012"])
    assert r.spell(IdKey(STORY, 12), 1) == "STORY-0012"
    assert r.spell(IdKey(STORY, 7)) == "STORY-7"
    assert r.spell(IdKey(STORY, 7), 4) == "STORY-0007"


def test_resolver_prefers_the_smallest_spelling_when_two_share_a_key() -> None:
    assert IdResolver(["STORY-12", "STORY-0012"]).resolve(IdKey(STORY, 12)) == "STORY-0012"
    assert IdResolver(["STORY-0012", "STORY-12"]).resolve(IdKey(STORY, 12)) == "STORY-0012"


def test_resolver_ignores_values_that_are_not_ids() -> None:
    r = IdResolver(["0123abcd" * 5, "not an id"])
    assert r.resolve(IdKey(STORY, 1)) is None


def test_resolver_add_registers_but_never_overrides() -> None:
    r = IdResolver(["STORY-0012"])
    r.add("STORY-12")
    r.add("DEC-1")
    assert r.resolve(IdKey(STORY, 12)) == "STORY-0012"
    assert r.resolve(IdKey("DEC", 1)) == "DEC-1"


def test_resolver_from_mapping() -> None:
    r = IdResolver.from_mapping({IdKey(STORY, 1): "STORY-001"})
    assert r.resolve(IdKey(STORY, 1)) == "STORY-001"
    assert r.spell(IdKey(STORY, 2), 3) == "STORY-002"


# -- dotted sub-task ids and family aliases (Backlog.md sources) ---------------------------------


def test_id_key_keeps_dotted_sub_task_parts_without_padding() -> None:
    assert id_key("BACK-24.1") == IdKey("BACK", 24, (1,))
    assert id_key("back-24.02") == IdKey("BACK", 24, (2,))
    assert id_key("BACK-24.1.3") == IdKey("BACK", 24, (1, 3))
    assert id_key("BACK-24") == IdKey("BACK", 24)
    assert id_key("BACK-24.") is None


def test_key_text_of_a_sub_task_differs_from_its_parent() -> None:
    assert IdKey("BACK", 24).text() == "BACK:24"
    assert IdKey("BACK", 24, (2,)).text() == "BACK:24.2"


def test_spell_key_pads_the_main_number_only() -> None:
    from revetly_core.ids import spell_key

    assert spell_key(IdKey("BACK", 7, (2,)), 3) == "BACK-007.2"
    assert spell_key(IdKey("STORY", 12), 4) == "STORY-0012"


def test_number_width_reads_the_main_number_of_a_written_id() -> None:
    from revetly_core.ids import number_width

    assert number_width("STORY-0012") == 4
    assert number_width("BACK-24.02") == 2
    assert number_width("STORY") == 0


def test_dotted_ids_are_found_only_for_dotted_families() -> None:
    finder = IdFinder(["BACK", "STORY"], dotted=["BACK"])
    assert finder.keys("done in BACK-24.1.") == [IdKey("BACK", 24, (1,))]
    assert finder.keys("see STORY-12.5") == [IdKey("STORY", 12)]
    assert finder.keys("BACK-12..14") == [IdKey("BACK", 12), IdKey("BACK", 13), IdKey("BACK", 14)]


def test_an_alias_spells_the_declared_family() -> None:
    finder = IdFinder(["BACK"], aliases={"TASK": "BACK"})
    assert finder.keys("task-12, TASK 13 and back-14") == [
        IdKey("BACK", 12), IdKey("BACK", 13), IdKey("BACK", 14)]
    assert finder.keys("Task 15 is prose") == []
    assert finder.families == frozenset({"BACK"})


def test_a_range_may_mix_an_alias_and_its_family() -> None:
    finder = IdFinder(["BACK"], aliases={"TASK": "BACK"})
    assert finder.keys("task-3..BACK-4") == [IdKey("BACK", 3), IdKey("BACK", 4)]


def test_resolver_spells_a_sub_task_key_it_does_not_hold() -> None:
    resolver = IdResolver(["BACK-7.02"])
    assert resolver.resolve(IdKey("BACK", 7, (2,))) == "BACK-7.02"
    assert resolver.resolve(IdKey("BACK", 7)) is None
    assert resolver.spell(IdKey("BACK", 8, (1,))) == "BACK-8.1"


@given(st.integers(0, 10**4), st.lists(st.integers(0, 99), min_size=1, max_size=3),
       st.integers(0, 4), st.booleans())
def test_dotted_ids_round_trip_any_padding_and_case(
    n: int, sub: list[int], pad: int, lower: bool,
) -> None:
    written = f"BACK-{n:0{pad}d}" + "".join(f".{s:02d}" for s in sub)
    key = IdKey("BACK", n, tuple(sub))
    assert id_key(written.lower() if lower else written) == key
    assert IdFinder(["BACK"], dotted=["BACK"]).keys(f"see {written} now") == [key]


FULL_WIDTH_5 = "STORY-\uff10\uff10\uff10\uff15"


def test_ids_are_ascii_by_rule() -> None:
    assert is_ascii_id("STORY-0005")
    assert not is_ascii_id(FULL_WIDTH_5)
    assert not is_ascii_id("STORY-\u0665")  # an Arabic-Indic five


@pytest.mark.parametrize("written", [FULL_WIDTH_5, "STORY-\u0665", "STORY-\U0001d7d3"])
def test_a_digit_that_is_not_ascii_names_no_id(written: str) -> None:
    assert id_key(written) is None
    assert IdFinder(["STORY"]).keys(f"see {written} now") == []


def test_id_key_is_cached_and_answers_as_before() -> None:
    """id_key is remembered per spelling: the same immutable key comes back, equal to a fresh one."""
    from revetly_core.ids import IdKey, id_key

    first = id_key(" story-0012.3 ")
    assert first == IdKey("STORY", 12, (3,))
    assert id_key(" story-0012.3 ") is first
    assert id_key("not an id") is None
    assert id_key.cache_info().hits >= 1


# -- the scan near digits gives exactly the pattern's matches ------------------------------

_PIECES = st.sampled_from([
    "STORY", "story", "Story", "DEC", "dec", "BACK", "back", "TASK", "V2", "v2", "DEL", "DELX",
    "-", "_", " ", ".", "..", " .. ", "\n", "12", "0007", "3", "4.5", "x", "ab", "9z", "é",
    "０", "#", "(", ")",
])


@given(st.lists(_PIECES, max_size=40), st.booleans())
@settings(max_examples=1000, deadline=None)
def test_the_scan_near_digits_finds_exactly_what_the_plain_scan_finds(
        pieces: list[str], dotted: bool) -> None:
    finder = IdFinder([*DEFAULT_FAMILIES, "BACK", "V2"], aliases={"TASK": "BACK"},
                      dotted=["BACK"] if dotted else [])
    text = "".join(pieces)
    assert finder._pattern is not None
    plain = [(m.span(), m.groups()) for m in finder._pattern.finditer(text)]
    assert [(m.span(), m.groups()) for m in finder._matches(text)] == plain


def test_a_family_that_is_not_letters_and_digits_is_scanned_plainly() -> None:
    finder = IdFinder(["STORY"], aliases={"A.B": "STORY"})
    assert not finder._near_digits
    assert finder.keys("see a.b-7 and STORY-2") == [IdKey("STORY", 7), IdKey("STORY", 2)]


def test_text_without_a_digit_names_no_id() -> None:
    assert keys("STORY- and DEC and the story of it") == []
