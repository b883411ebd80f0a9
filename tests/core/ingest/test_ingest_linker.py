"""The deterministic linker: declared links, ids in prose and titles in prose."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.ids import DEFAULT_FAMILIES, IdKey, IdResolver
from revetly_core.ingest.linker import (
    MIN_TITLE_CHARS,
    MIN_TITLE_TOKENS,
    SEPARATORS_HELD,
    TOKEN_RUN,
    TOKEN_TABLE,
    Linker,
    TitleIndex,
    contains_phrase,
    key_text,
    mention_phrases,
    tokens,
)
from revetly_core.model import Artifact


def art(aid: str, title: str = "Untitled item", body: str = "", typ: str = "story",
        declared: dict[str, Any] | None = None, aliases: list[str] | None = None) -> Artifact:
    return Artifact(id=aid, type=typ, title=title, source="repository", project="acme", body=body,
                    metadata={"declared": declared or {}}, aliases=aliases or [])


HELD = [
    art("STORY-0001", "Checkout flow"),
    art("STORY-0002", "Payment retries"),
    art("STORY-0003", "Login"),          # one word: never a mention
    art("STORY-0004", "Log in"),         # two words but under 8 characters
    art("DEC-0001", "Use Postgres for invoices", typ="decision"),
    art("REF-0001", "Style guide", typ="reference", aliases=["UX", "brand book"]),
]


def linker_for(held: list[Artifact] = HELD) -> Linker:
    titles = TitleIndex()
    for a in held:
        titles.add(a.id, mention_phrases(a))
    return Linker(DEFAULT_FAMILIES, IdResolver(a.id for a in held), titles)


def links(a: Artifact, held: list[Artifact] = HELD) -> set[tuple[str, str, str]]:
    return {(link.dst, link.relation, link.method) for link in linker_for(held).links_of(a)}


# -- tokens and phrases ------------------------------------------------------------------------


def test_tokens_are_lower_case_alphanumeric_runs() -> None:
    assert tokens("The Check-out FLOW, v2.0 (beta)!") == ["the", "check", "out", "flow", "v2",
                                                        "0", "beta"]
    assert tokens("") == []


def test_the_title_minimums() -> None:
    assert (MIN_TITLE_TOKENS, MIN_TITLE_CHARS) == (2, 8)
    assert mention_phrases(art("S-1", "Checkout flow")) == [("checkout", "flow")]
    assert mention_phrases(art("S-1", "Authentication")) == []      # one word, long
    assert mention_phrases(art("S-1", "Log in")) == []              # two words, 6 characters
    assert mention_phrases(art("S-1", "Fix bug")) == []             # two words, 7 characters
    # "at least 8 characters, words joined by single spaces": "api keys" is exactly 8
    assert mention_phrases(art("S-1", "API  keys")) == [("api", "keys")]
    assert mention_phrases(art("S-1", "Dark mode")) == [("dark", "mode")]


def test_an_alias_counts_with_one_word_of_three_characters() -> None:
    phrases = mention_phrases(art("REF-1", "Style guide", aliases=["UX", "CSV", "brand book"]))
    assert phrases == [("style", "guide"), ("csv",), ("brand", "book")]


def test_commits_have_no_mention_phrases() -> None:
    assert mention_phrases(art("c0ffee", "Rework the checkout flow", typ="commit")) == []


def test_contains_phrase_wants_contiguous_tokens() -> None:
    body = tokens("we shipped the checkout flow and the payment page")
    assert contains_phrase(body, ("checkout", "flow"))
    assert contains_phrase(body, ("payment",))
    assert not contains_phrase(body, ("checkout", "page"))
    assert not contains_phrase(body, ("flow", "checkout"))
    assert not contains_phrase(tokens("checkout"), ("checkout", "flow"))


def test_title_index_finds_every_phrase_in_a_body() -> None:
    ix = TitleIndex()
    ix.add("A", [("checkout", "flow")])
    ix.add("B", [("checkout", "flow", "redesign")])
    ix.add("C", [("checkout", "flow")])
    assert ix.found_in(tokens("the checkout flow redesign")) == {"A", "B", "C"}
    assert ix.found_in(tokens("the checkout flow")) == {"A", "C"}
    assert ix.found_in(tokens("checkout")) == set()


_tok = st.sampled_from(["a", "b", "c", "d"])


@given(st.dictionaries(st.sampled_from(["X-1", "X-2", "X-3", "X-4"]),
                       st.lists(st.lists(_tok, min_size=1, max_size=3).map(tuple), max_size=2),
                       max_size=4),
       st.lists(_tok, max_size=20))
def test_title_index_agrees_with_a_brute_force_scan(
    phrases: dict[str, list[tuple[str, ...]]], body: list[str]
) -> None:
    ix = TitleIndex()
    for aid, ps in phrases.items():
        ix.add(aid, ps)
    expected = {aid for aid, ps in phrases.items() if any(contains_phrase(body, p) for p in ps)}
    assert ix.found_in(body) == expected


def test_key_text() -> None:
    assert key_text(IdKey("STORY", 12)) == "STORY:12"


# -- declared links -----------------------------------------------------------------------------


def test_every_declared_field_gives_a_declared_link_with_its_relation() -> None:
    a = art("DEC-0002", typ="decision", declared={
        "parent": "STORY-1", "cites": ["DEC-1"], "references": ["REF-0001"],
        "related_ids": ["story-2"], "supersedes": ["DEC-0001"], "delivers": "STORY-0002",
        "implemented_by": ["ABCDEF0123"],
        "revises": [{"id": "STORY-0003", "criteria": [1, 2], "criteria_fp": ["aa", "bb"]},
                    {"id": "STORY-0004", "criteria": []}],
    })
    linker = linker_for()
    got = {(link.dst, link.relation): link for link in linker.declared_links(a)}
    assert set(got) == {
        ("STORY-0001", "parent"), ("DEC-0001", "cites"), ("REF-0001", "references"),
        ("STORY-0002", "related"), ("DEC-0001", "supersedes"), ("STORY-0002", "delivers"),
        ("abcdef0123", "implemented_by"), ("STORY-0003", "revises"), ("STORY-0004", "revises"),
    }
    assert {link.method for link in got.values()} == {"declared"}
    assert got[("STORY-0003", "revises")].detail_dict() == {"criteria": (1, 2),
                                                            "criteria_fp": ("aa", "bb")}
    assert got[("STORY-0004", "revises")].detail == ()


def test_a_declared_id_not_held_keeps_its_written_padding() -> None:
    (link,) = linker_for().declared_links(art("STORY-0009", declared={"cites": ["DEC-007"]}))
    assert link.dst == "DEC-007"


def test_a_declared_value_that_is_not_an_id_is_kept_as_written() -> None:
    (link,) = linker_for().declared_links(art("STORY-0009", declared={"parent": " epic one "}))
    assert link.dst == "epic one"


# -- ids in prose -------------------------------------------------------------------------------


def test_ids_named_in_a_body_are_explicit_refs_resolved_to_held_spellings() -> None:
    a = art("STORY-0009", body="Needs story-1, STORY 2 and DEC_1; also TASK-0042. Dec 12 call.")
    assert links(a) == {
        ("STORY-0001", "references", "explicit-ref"),
        ("STORY-0002", "references", "explicit-ref"),
        ("DEC-0001", "references", "explicit-ref"),
        ("TASK-0042", "references", "explicit-ref"),
    }


def test_only_the_body_of_a_work_item_is_scanned_for_ids() -> None:
    assert links(art("STORY-0009", title="Follow up on STORY-0001", body="nothing")) == set()


def test_an_artifact_naming_itself_is_no_link() -> None:
    assert links(art("STORY-0001", body="This is STORY-1, see story-0001.")) == set()


def test_a_range_in_prose_links_each_id() -> None:
    got = links(art("STORY-0009", body="Covers STORY-0001..0003."))
    assert {dst for dst, _r, _m in got} == {"STORY-0001", "STORY-0002", "STORY-0003"}


def test_commit_links_record_subject_or_body() -> None:
    c = art("c0ffee", "Fix STORY-1 and STORY-2", "Also STORY-2 and STORY-3.", typ="commit")
    got = {link.dst: link.detail_dict() for link in linker_for().links_of(c)}
    assert got == {"STORY-0001": {"in": "subject"}, "STORY-0002": {"in": "subject"},
                   "STORY-0003": {"in": "body"}}


def test_an_explicit_ref_is_skipped_when_a_declared_link_to_the_target_exists() -> None:
    a = art("STORY-0009", body="We follow DEC-1 and STORY-2.", declared={"cites": ["DEC-0001"]})
    assert links(a) == {("DEC-0001", "cites", "declared"),
                        ("STORY-0002", "references", "explicit-ref")}


def test_an_explicit_ref_is_skipped_whatever_spelling_the_declaration_used() -> None:
    a = art("STORY-0009", body="We follow dec-0001.", declared={"cites": ["DEC-1"]})
    assert links(a) == {("DEC-0001", "cites", "declared")}


# -- titles in prose ----------------------------------------------------------------------------


def test_a_title_named_in_a_body_is_a_mention() -> None:
    a = art("STORY-0009", body="This builds on the Checkout-Flow work.")
    assert links(a) == {("STORY-0001", "mentions", "title-mention")}


def test_a_title_mention_is_skipped_when_the_body_names_the_target_by_id() -> None:
    a = art("STORY-0009", body="The checkout flow (story-1) needs this.")
    assert links(a) == {("STORY-0001", "references", "explicit-ref")}


def test_a_title_mention_is_kept_when_the_body_names_other_ids() -> None:
    a = art("STORY-0009", body="The checkout flow needs STORY-2.")
    assert links(a) == {("STORY-0001", "mentions", "title-mention"),
                        ("STORY-0002", "references", "explicit-ref")}


def test_a_title_mention_is_skipped_when_declared() -> None:
    a = art("STORY-0009", body="Part of the checkout flow.", declared={"parent": "STORY-0001"})
    assert links(a) == {("STORY-0001", "parent", "declared")}


def test_short_and_one_word_titles_are_never_mentions() -> None:
    assert links(art("STORY-0009", body="Login works. Log in works.")) == set()


def test_an_alias_is_a_mention() -> None:
    a = art("STORY-0009", body="Follow the brand book; UX matters.")
    assert links(a) == {("REF-0001", "mentions", "title-mention")}


def test_an_artifact_does_not_mention_itself() -> None:
    assert links(art("STORY-0001", "Checkout flow", body="The checkout flow is this.")) == set()


def test_the_title_must_appear_whole_and_in_order() -> None:
    assert links(art("STORY-0009", body="flow checkout; postgres for invoices")) == set()
    assert links(art("STORY-0009", body="We use Postgres for invoices.")) == {
        ("DEC-0001", "mentions", "title-mention")}


def test_commits_do_not_mention_titles() -> None:
    c = art("c0ffee", "Rework the checkout flow", "the checkout flow", typ="commit")
    assert linker_for().links_of(c) == []


# -- invariants over generated bodies ------------------------------------------------------------

_pieces = st.sampled_from([
    "STORY-1", "story-0002", "STORY 0002", "STORY_3", "DEC-0001", "TASK-7", "checkout flow",
    "payment retries",
    "Use Postgres for invoices", "style guide", "brand book", "words", "and", ".", "\n",
    "STORY-0001..0002", "STORY-9",
])
_declared = st.fixed_dictionaries({}, optional={
    "cites": st.lists(st.sampled_from(["DEC-1", "DEC-0001", "STORY-2", "REF-1"]), max_size=2),
    "parent": st.sampled_from(["STORY-0001", "STORY-1", "EPIC-1"]),
})


@given(st.lists(_pieces, max_size=12).map(" ".join), _declared,
       st.sampled_from(["STORY-0001", "STORY-0009", "REF-0001"]))
@settings(deadline=None)  # no timed assertions: a first call on a loaded machine took 312 ms
def test_links_obey_the_precedence_rules(body: str, declared: dict[str, Any], own: str) -> None:
    a = art(own, body=body, declared=declared)
    linker = linker_for()
    out = linker.links_of(a)
    keys = [(link.src, link.dst, link.relation, link.method) for link in out]
    assert len(keys) == len(set(keys)), "a link is stated twice"
    assert all(link.src == own for link in out)
    declared_dsts = {link.dst for link in out if link.method == "declared"}
    weaker = [link for link in out if link.method != "declared"]
    assert all(link.dst != own for link in weaker), "prose links an artifact to itself"
    assert not {link.dst for link in weaker} & declared_dsts
    named = {link.dst for link in out if link.method == "explicit-ref"}
    mentions = {link.dst for link in out if link.method == "title-mention"}
    assert not named & mentions, "a title-mention to a target the body names by id"
    # every explicit-ref target is a key the body names
    body_keys = set(linker.finder.keys(body))
    from revetly_core.ids import id_key

    assert {id_key(d) for d in named} <= body_keys


@pytest.mark.parametrize("typ", ["story", "decision", "conversation", "delivery"])
def test_every_non_commit_type_links_the_same_way(typ: str) -> None:
    a = art("CONV-0009", typ=typ, body="See STORY-1 and the payment retries.")
    assert links(a) == {("STORY-0001", "references", "explicit-ref"),
                        ("STORY-0002", "mentions", "title-mention")}


# -- the store-backed resolver and title lookup agree with the in-memory ones -------------------

_held_ids = st.lists(st.sampled_from(["STORY-1", "STORY-0001", "STORY-2", "DEC-7", "DEC-0007",
                                      "TASK-3", "c0ffee"]), unique=True, max_size=7)
_titles = st.sampled_from(["Checkout flow", "Checkout flow redesign", "Payment retries",
                           "Login", "Log in", "Flow checkout", "Retries"])
_body_words = st.lists(st.sampled_from(["checkout", "flow", "redesign", "payment", "retries",
                                        "login", "log", "in", "the"]), max_size=15)


@given(_held_ids, st.lists(_titles, min_size=7, max_size=7), _body_words,
       st.lists(st.tuples(st.sampled_from(["STORY", "DEC", "TASK", "BUG"]), st.integers(0, 8),
                          st.integers(0, 5)), max_size=6))
@settings(max_examples=40, deadline=None)
def test_store_resolver_and_titles_agree_with_the_in_memory_ones(
    tmp_path_factory: pytest.TempPathFactory, held: list[str], titles: list[str],
    body: list[str], probes: list[tuple[str, int, int]]
) -> None:
    from revetly_core.ingest.linker import StoreResolver, StoreTitles, phrase_text
    from revetly_core.store.db import Store

    store = Store(tmp_path_factory.mktemp("linker") / "context.db")
    try:
        arts = [art(aid, titles[i], typ="commit" if aid == "c0ffee" else "story")
                for i, aid in enumerate(held)]
        store.upsert_artifacts(arts, "2024-01-01T00:00:00+00:00")
        store.replace_phrases({a.id: [phrase_text(p) for p in mention_phrases(a)] for a in arts})
        memory_resolver = IdResolver(held)
        memory_titles = TitleIndex()
        for a in arts:
            memory_titles.add(a.id, mention_phrases(a))
        store_resolver, store_titles = StoreResolver(store), StoreTitles(store)
        for fam, n, width in probes:
            key = IdKey(fam, n)
            assert store_resolver.resolve(key) == memory_resolver.resolve(key)
            assert store_resolver.spell(key, width) == memory_resolver.spell(key, width)
        assert store_titles.found_in(body) == memory_titles.found_in(body)
    finally:
        store.close()


_WORDS = st.sampled_from(["payment", "retry", "card", "export", "the", "invoice", "csv"])


@given(st.lists(st.lists(_WORDS, min_size=1, max_size=4), max_size=12),
       st.lists(_WORDS, max_size=40))
@settings(max_examples=300, deadline=None)
def test_the_title_index_finds_exactly_the_phrases_standing_whole_in_a_body(
        phrases: list[list[str]], body: list[str]) -> None:
    ix = TitleIndex()
    for n, phrase in enumerate(phrases):
        ix.add(f"STORY-{n}", [tuple(phrase)])
    expected = {f"STORY-{n}" for n, phrase in enumerate(phrases)
                if contains_phrase(body, tuple(phrase))}
    assert ix.found_in(body) == expected


@given(st.text(max_size=200))
@settings(max_examples=500, deadline=None)
def test_tokens_are_the_lowercased_runs_of_ascii_letters_and_digits(text: str) -> None:
    assert tokens(text) == TOKEN_RUN.findall(text.lower())


def test_the_token_table_remembers_a_bounded_number_of_characters() -> None:
    tokens("".join(chr(c) for c in range(0x4E00, 0x4E00 + 2 * SEPARATORS_HELD)) + " ab1")
    assert len(TOKEN_TABLE) <= SEPARATORS_HELD
    assert tokens("Ünïcode-Wörds 2x") == ["n", "code", "w", "rds", "2x"]


def former_found_in(phrases: dict[str, list[tuple[str, ...]]], body: list[str]) -> set[str]:
    """The title scan before the automaton (main 67507b3): one-token phrases by a set
    intersection, longer ones by their first two tokens and the lengths behind them."""
    by_phrase: dict[tuple[str, ...], set[str]] = {}
    singles: set[str] = set()
    followers: dict[str, dict[str, set[int]]] = {}
    for aid, ps in phrases.items():
        for phrase in ps:
            by_phrase.setdefault(phrase, set()).add(aid)
            if len(phrase) == 1:
                singles.add(phrase[0])
            else:
                followers.setdefault(phrase[0], {}).setdefault(phrase[1], set()).add(len(phrase))
    found: set[str] = set()
    for tok in singles.intersection(body):
        found.update(by_phrase[(tok,)])
    for i in [i for i, tok in enumerate(body[:-1]) if tok in followers]:
        for length in followers[body[i]].get(body[i + 1], set()):
            if i + length <= len(body):
                found.update(by_phrase.get(tuple(body[i:i + length]), set()))
    return found


_SCAN_WORDS = st.sampled_from(["a", "b", "ab", "ba", "a1", "1", "standardise", "on", "the"])


@given(st.dictionaries(st.sampled_from([f"STORY-{n}" for n in range(8)]),
                       st.lists(st.lists(_SCAN_WORDS, min_size=1, max_size=5).map(tuple),
                                max_size=3),
                       max_size=8),
       st.lists(_SCAN_WORDS, max_size=60))
@settings(max_examples=400, deadline=None)
def test_the_automaton_scan_finds_what_the_former_scan_found(
        phrases: dict[str, list[tuple[str, ...]]], body: list[str]) -> None:
    ix = TitleIndex()
    for aid, ps in phrases.items():
        ix.add(aid, ps)
    assert ix.found_in(body) == former_found_in(phrases, body)


def test_a_phrase_added_after_a_scan_is_found_by_the_next() -> None:
    ix = TitleIndex()
    ix.add("A", [("checkout", "flow")])
    assert ix.found_in(tokens("the checkout flow and the payment retry")) == {"A"}
    ix.add("B", [("payment", "retry")])
    assert ix.found_in(tokens("the checkout flow and the payment retry")) == {"A", "B"}


def test_a_phrase_is_found_only_on_whole_tokens() -> None:
    ix = TitleIndex()
    ix.add("A", [("check", "out")])
    assert ix.found_in(tokens("checkout outcome")) == set()
    assert ix.found_in(tokens("re-check out")) == {"A"}
    assert TitleIndex().found_in(tokens("anything")) == set()
