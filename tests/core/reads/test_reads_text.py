"""Summaries, passages and query words."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.reads import text


def test_summary_is_title_then_prose_cut_on_a_word_and_marked() -> None:
    body = "# Title\n\n" + "word " * 100
    s = text.summary("Title", body)
    assert s.startswith("Title — word")
    assert s.endswith("…")
    assert len(s) <= len("Title — ") + text.SUMMARY_CHARS + 1


def test_a_short_body_is_not_marked_cut() -> None:
    assert text.summary("T", "# T\n\nShort prose.") == "T — Short prose."


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=800))
def test_the_same_body_always_gives_the_same_summary(body: str) -> None:
    assert text.summary("T", body) == text.summary("T", body)


def test_headings_are_not_prose() -> None:
    assert text.prose("# Heading\nline one\n## Sub\nline two") == "line one line two"


def test_passage_is_the_window_with_most_distinct_query_words() -> None:
    filler = " ".join(f"filler{i}" for i in range(100))
    body = f"{filler} invoices exported as csv files {filler}"
    found = text.best_passage(body, text.query_words("export invoices csv"))
    assert found is not None
    passage, words = found
    assert "invoices exported as csv" in passage
    assert words == ["csv", "export", "invoic"]
    assert passage.startswith("…") and passage.endswith("…")


def test_no_passage_when_no_query_word_is_there() -> None:
    assert text.best_passage("nothing relevant here", ["invoice"]) is None


def test_query_words_drop_stopwords_and_stem_lightly() -> None:
    assert text.query_words("the Invoices and exporting") == ["invoic", "export"]
    assert text.query_words("invoice export") == ["invoic", "export"]
    assert text.query_words("the a of") == []


def _naive_best(body: str, words: list[str], window: int) -> tuple[str, list[str]] | None:
    """The passage rule written the slow, obvious way: every window counted from scratch."""
    import re

    prose = text.prose(body)
    spans = [(m.start(), m.end(), text.light_stem(m.group(0)))
             for m in re.finditer(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?", prose)]
    best, found_best = -1, set()
    start_best = 0
    for i in range(max(1, len(spans) - window + 1)):
        found = {s for _, _, s in spans[i : i + window] if s in set(words)}
        if len(found) > best:
            best, found_best, start_best = len(found), found, i
    if best <= 0:
        return None
    last = min(start_best + window, len(spans)) - 1
    passage = prose[spans[start_best][0] : spans[last][1]]
    passage = ("…" if start_best > 0 else "") + passage + ("…" if last < len(spans) - 1 else "")
    return passage, sorted(found_best)


@given(st.lists(st.sampled_from(["invoice", "export", "csv", "the", "filler", "tax", "due"]),
                max_size=120),
       st.integers(min_value=1, max_value=12))
def test_the_sliding_window_finds_what_counting_every_window_finds(
    body_words: list[str], window: int
) -> None:
    body = " ".join(body_words)
    words = text.query_words("export invoices tax")
    assert text.best_passage(body, words, window) == _naive_best(body, words, window)


def test_record_fields_heading_a_body_are_left_out_of_its_summary() -> None:
    from revetly_core.reads.text import summary, without_lead_fields

    body = "# 2. Use it\n\nDate: 2023-09-10\n\n## Status\n\nAccepted\n\n## Context\n\nWords here.\n"
    assert without_lead_fields(body).startswith("## Context")
    assert summary("Use it", body) == "Use it — Words here."
    assert without_lead_fields("**Status:** Done\n\nThe body.") == "The body."
    assert without_lead_fields("Plain body.\nStatus: later") == "Plain body.\nStatus: later"


@given(st.lists(st.sampled_from([None, "tax", "due", "csv"]), max_size=80),
       st.integers(min_value=1, max_value=10))
def test_the_best_window_is_the_earliest_holding_most_distinct_hits(
    hits: list[str | None], window: int
) -> None:
    start, found = text.best_window(hits, window)
    starts = range(max(1, len(hits) - window + 1))
    counted = [{h for h in hits[s : s + window] if h is not None} for s in starts]
    most = max(len(c) for c in counted)
    assert len(found) == most
    assert start == min(s for s in starts if len(counted[s]) == most)
    assert found == counted[start]


def test_query_hits_name_the_query_word_each_token_stems_to() -> None:
    tokens = ["Invoices", "are", "exported", "invoice", "Tax"]
    assert text.query_hits(tokens, {"invoic", "export"}) == [
        "invoic", None, "export", "invoic", None]


@given(st.from_regex(r"[A-Za-z0-9]{1,12}(['’][A-Za-z]{1,4})?", fullmatch=True))
def test_a_light_stem_keeps_the_first_two_letters_of_its_word(word: str) -> None:
    assert text.stem_keeps_head(word)


@given(st.lists(st.from_regex(r"[A-Za-z0-9]{1,9}(['’][A-Za-z]{1,3})?", fullmatch=True), max_size=30),
       st.lists(st.from_regex(r"[A-Za-z0-9]{1,9}", fullmatch=True), min_size=1, max_size=4))
def test_query_hits_find_what_stemming_every_token_finds(tokens: list[str], query: list[str]) -> None:
    wanted = {text.light_stem(w) for w in query}
    every = [stem if (stem := text.light_stem(t)) in wanted else None for t in tokens]
    assert text.query_hits(tokens, wanted) == every


def test_query_words_in_counts_distinct_stems_of_plain_words() -> None:
    wanted = set(text.query_words("export invoices tax"))
    assert text.query_words_in("STORY-1 (Invoice exports) delivers invoices", wanted) == 2
    assert text.query_words_in("nothing here", wanted) == 0


@given(st.lists(st.sampled_from(["Invoice", "exports", "tax", "taxes", "due", "x1", "STORY-1"]),
                max_size=20))
def test_query_words_in_counts_what_stemming_every_word_counts(words: list[str]) -> None:
    import re

    wanted = set(text.query_words("export invoices tax"))
    phrase = " ".join(words)
    every = {text.light_stem(w) for w in re.findall(r"[A-Za-z0-9]+", phrase)}
    assert text.query_words_in(phrase, wanted) == len(every & wanted)


@given(st.text(alphabet=st.sampled_from("ab #\n\t\x0c"), max_size=400), st.integers(0, 60))
def test_prose_head_cuts_like_the_whole_prose(body: str, chars: int) -> None:
    head = text.prose_head(body, chars)
    whole = text.prose(body)
    assert whole.startswith(head)
    assert text.cut_on_word(head, chars) == text.cut_on_word(whole, chars)


@given(st.from_regex(r"[A-Za-z0-9]{1,12}(['’][A-Za-z]{1,4})?", fullmatch=True),
       st.lists(st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True), max_size=3))
def test_a_word_whose_stem_is_wanted_begins_as_a_stem_head_says(word: str, others: list[str]) -> None:
    wanted = frozenset({text.light_stem(word), *others})
    two, one = text.stem_heads(wanted)
    assert word[:2] in two or word[:1] in one
