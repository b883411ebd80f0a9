"""The keyword index: a BM25 cache of the store with a revision stamp, on either backend.

Every behaviour test runs against both backends (FTS5, the default, and whoosh): they index the
same analysed text and must answer alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.model import Artifact
from revetly_core.store.keyword import (
    BACKENDS,
    Backend,
    KeywordIndex,
    KeywordSearcher,
    analyze,
    chunk_terms,
    dotted_parts,
    indexed_text,
    keeps_its_ending,
    population,
    stem,
    topic_words,
)
from revetly_core.store.keyword_whoosh import analyzer as whoosh_analyzer
from whoosh.lang.porter import stem as porter


def art(aid: str, title: str, body: str = "", type: str = "story", **kw: object) -> Artifact:
    return Artifact(id=aid, type=type, title=title, source="repository", project="acme",
                    body=body, **kw)  # type: ignore[arg-type]


def units(text: str) -> list[list[list[str]]]:
    """One unit per word, each with its single stemmed spelling."""
    return [[KeywordSearcher.analyze(w)] for w in text.split()]


DOCS = [
    art("STORY-0001", "Payment retries", "Retry a failed card payment three times."),
    art("STORY-0002", "Invoice export", "Export invoices as CSV; a payment column is included."),
    art("STORY-0003", "Dark mode", "Switch the theme at night."),
    art("DEC-0001", "Use Postgres", "We store invoices in Postgres.", type="decision"),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    name: Backend = request.param
    return name


@pytest.fixture()
def index(tmp_path: Path, backend: Backend) -> KeywordIndex:
    ix = KeywordIndex(tmp_path / "index", backend)
    ix.rebuild(DOCS, len(DOCS), revision=1)
    return ix


def search(ix: KeywordIndex, text: str, limit: int = 10, any_unit: bool = False) -> list[str]:
    with ix.searcher() as s:
        return [i for i, _score in s.search(units(text), limit, any_unit=any_unit)]


def test_analyze_stems_and_drops_stop_words() -> None:
    assert KeywordSearcher.analyze("The Payments are retried") == ["payment", "retri"]


def test_rebuild_stamps_the_revision(index: KeywordIndex) -> None:
    assert index.revision() == 1
    assert (index.directory / "REVISION").read_text() == "1"


def test_a_missing_or_torn_stamp_reads_as_none(tmp_path: Path, index: KeywordIndex) -> None:
    assert KeywordIndex(tmp_path / "absent", index.backend_name).revision() is None
    (index.directory / "REVISION").write_text("not a number")
    assert index.revision() is None


def test_search_matches_stems_and_ranks_titles_first(index: KeywordIndex) -> None:
    hits = search(index, "payments")
    assert hits[0] == "STORY-0001"  # in the title (boosted) and the body
    assert set(hits) == {"STORY-0001", "STORY-0002"}


def test_scores_are_positive_and_best_first(index: KeywordIndex) -> None:
    with index.searcher() as s:
        scored = s.search(units("invoices"), 10)
    assert [i for i, _ in scored] == ["STORY-0002", "DEC-0001"]
    assert scored[0][1] >= scored[1][1] > 0


def test_all_words_first_then_any_word_when_too_few(index: KeywordIndex) -> None:
    assert search(index, "invoices postgres", limit=1) == ["DEC-0001"]
    assert set(search(index, "invoices postgres", limit=5)) == {"DEC-0001", "STORY-0002"}
    assert set(search(index, "invoices postgres", limit=1, any_unit=True)) <= {
        "DEC-0001", "STORY-0002"}


def test_alternative_spellings_of_a_unit(index: KeywordIndex) -> None:
    with index.searcher() as s:
        hits = s.search([[["theme"], ["postgr"]]], 10)
    assert {i for i, _ in hits} == {"STORY-0003", "DEC-0001"}


def test_the_id_is_searchable_with_the_title(index: KeywordIndex) -> None:
    assert search(index, "STORY-0003")[0] == "STORY-0003"


def test_nothing_to_search_finds_nothing(index: KeywordIndex) -> None:
    with index.searcher() as s:
        assert s.search([], 10) == []
        assert s.search([[[]]], 10) == []
    assert search(index, "zebra") == []


def test_a_withheld_body_is_not_indexed(tmp_path: Path, backend: Backend) -> None:
    ix = KeywordIndex(tmp_path / "index", backend)
    ix.rebuild([art("STORY-0001", "Secret project", "classified xylophone",
                    metadata={"withheld": True})], 1, revision=1)
    assert search(ix, "xylophone") == []
    assert search(ix, "secret") == ["STORY-0001"]


def test_update_replaces_changed_documents_and_adds_new_ones(index: KeywordIndex) -> None:
    changed = [art("STORY-0003", "Light mode", "Brighter colours."),
               art("STORY-0004", "Audit trail", "Keep a log of every change.")]
    index.update(changed, existing={"STORY-0003"}, revision=2)
    assert index.revision() == 2
    assert search(index, "dark") == []
    assert search(index, "brighter") == ["STORY-0003"]
    assert search(index, "audit") == ["STORY-0004"]
    with index.searcher() as s:
        assert s.doc_count == 5


def test_update_with_nothing_changed_only_moves_the_stamp(index: KeywordIndex) -> None:
    index.update([], set(), revision=7)
    assert index.revision() == 7
    assert search(index, "dark") == ["STORY-0003"]


def test_rebuild_starts_from_scratch(index: KeywordIndex) -> None:
    index.rebuild([art("STORY-0009", "Only one")], 1, revision=5)
    assert search(index, "payment") == []
    assert index.revision() == 5
    with index.searcher() as s:
        assert s.doc_count == 1


def test_idf_is_zero_for_absent_terms_and_higher_for_rarer_ones(index: KeywordIndex) -> None:
    with index.searcher() as s:
        assert s.idf("zebra") == 0.0
        common, rare = s.idf("invoic"), s.idf("theme")
        assert rare > common > 0


COMMIT = art("a" * 40, "Retry the payment job", "payment payment payment", type="commit")


def population_search(ix: KeywordIndex, text: str, population: str | None) -> list[str]:
    with ix.searcher() as s:
        return [i for i, _ in s.search(units(text), 10, any_unit=True,
                                        population=population)]  # type: ignore[arg-type]


def test_a_document_belongs_to_the_commits_or_the_records_population() -> None:
    assert population(COMMIT) == "commits"
    assert {population(d) for d in DOCS} == {"records"}


def test_each_population_is_searched_apart_or_both_together(tmp_path: Path, backend: Backend) -> None:
    ix = KeywordIndex(tmp_path / "index", backend)
    ix.rebuild([*DOCS, COMMIT], len(DOCS) + 1, revision=1)
    assert population_search(ix, "payment", "commits") == [COMMIT.id]
    assert COMMIT.id not in population_search(ix, "payment", "records")
    assert set(population_search(ix, "payment", None)) == {"STORY-0001", "STORY-0002", COMMIT.id}


def test_commits_do_not_change_how_rare_a_word_is_among_records(
    tmp_path: Path, backend: Backend
) -> None:
    """Regression (issue 12): commit subjects skewed BM25's statistics for tasks."""
    plain = KeywordIndex(tmp_path / "plain", backend)
    plain.rebuild(DOCS, len(DOCS), revision=1)
    mixed = KeywordIndex(tmp_path / "mixed", backend)
    many = [art(f"{n:040x}", "payment payment", type="commit") for n in range(1, 30)]
    mixed.rebuild([*DOCS, *many], len(DOCS) + len(many), revision=1)
    with plain.searcher() as a, mixed.searcher() as b:
        alone = a.search(units("payment"), 10, population="records")
        beside = b.search(units("payment"), 10, population="records")
    assert [i for i, _ in alone] == [i for i, _ in beside]
    assert [round(s, 6) for _, s in alone] == [round(s, 6) for _, s in beside]


def test_an_update_moves_a_document_between_populations_cleanly(index: KeywordIndex) -> None:
    index.update([COMMIT], set(), revision=2)
    assert population_search(index, "payment", "commits") == [COMMIT.id]
    index.update([art(COMMIT.id, "Now a story about payment", type="story")], {COMMIT.id}, revision=3)
    assert population_search(index, "payment", "commits") == []
    assert COMMIT.id in population_search(index, "payment", "records")


@given(st.text(min_size=1, max_size=12).map(str.lower)
       | st.text(alphabet="abcdeilnsty0129\n-.", min_size=1, max_size=10))
@settings(max_examples=2000, deadline=None)
def test_a_word_ending_in_no_ascii_letter_is_its_own_porter_stem(word: str) -> None:
    if keeps_its_ending(word):
        assert porter(word) == word
    assert stem(word) == porter(word)


@given(st.from_regex(r"[a-z][a-z0-9]{0,6}(-[0-9]{1,5}|[0-9]{1,4})", fullmatch=True))
@settings(max_examples=300, deadline=None)
def test_ids_and_numbered_words_skip_the_stemmer_and_keep_porters_answer(word: str) -> None:
    assert keeps_its_ending(word)
    assert stem(word) == porter(word) == word


def test_a_word_ending_in_a_letter_and_a_newline_is_stemmed_as_porter_stems_it() -> None:
    assert not keeps_its_ending("i0e\n")
    assert stem("i0e\n") == porter("i0e\n") == "i0"
    assert keeps_its_ending("a12\n")


def test_phrase_scores_reach_only_rows_holding_the_pair_side_by_side(tmp_path: Path,
                                                                      backend: Backend) -> None:
    ix = KeywordIndex(tmp_path / "phrases", backend)
    docs = [art("STORY-0001", "Heap soak", "Run the heap soak overnight."),
            art("STORY-0002", "Soak test", "The heap is measured after a soak."),
            art("STORY-0003", "Heap soak report", "Write up the heap soak.")]
    ix.rebuild(docs, len(docs), revision=1)
    pair = [("heap", "soak")]
    with ix.searcher() as s:
        scores = s.phrase_scores(pair, ["STORY-0001", "STORY-0002"], "records")
        assert set(scores) == {"STORY-0001"} and scores["STORY-0001"] > 0
        assert s.phrase_scores(pair, ["STORY-0001"], "commits") == {}
        assert s.phrase_scores([], ["STORY-0001"], "records") == {}


@given(st.text(alphabet="abzAZ.,;:!?)'\"-_0é*\u0130", min_size=1, max_size=10)
       | st.text(min_size=1, max_size=10).filter(lambda t: not any(c.isspace() for c in t)))
@settings(max_examples=2000, deadline=None)
def test_a_chunks_terms_without_the_regex_are_analyzes_terms(chunk: str) -> None:
    assert chunk_terms(chunk) == " ".join(analyze(chunk))


def test_a_word_with_a_closing_mark_is_its_stemmed_word() -> None:
    assert chunk_terms("Messages,") == "messag" and chunk_terms("the.") == ""
    assert chunk_terms("e.g.") == " ".join(analyze("e.g."))


def test_a_dotted_token_has_its_parts_and_a_plain_word_none() -> None:
    assert dotted_parts("mqttstuff.ino") == ["mqttstuff", "ino"]
    assert dotted_parts("alpha.24") == ["alpha", "24"]
    assert dotted_parts("heap") == []


def test_a_dotted_token_is_indexed_whole_then_part_by_part() -> None:
    assert analyze("fix build.py gate") == ["fix", "build.pi", "build", "py", "gate"]
    assert analyze("v1.4.2 the.end") == ["v1.4.2", "v1", "the.end", "end"]


def test_a_file_name_answers_to_each_of_its_words(tmp_path: Path, backend: Backend) -> None:
    ix = KeywordIndex(tmp_path / "dotted", backend)
    docs = [art("STORY-0001", "Gate fix", "The regex in evaluate.py misses continuations."),
            art("STORY-0002", "Evaluation notes", "Nothing about files here.")]
    ix.rebuild(docs, len(docs), revision=1)
    assert search(ix, "evaluate.py") == ["STORY-0001"]
    assert search(ix, "py") == ["STORY-0001"]
    with ix.searcher() as s:
        assert set(s.phrase_scores([("evaluate.pi", "evalu")], ["STORY-0001"], "records")) == {
            "STORY-0001"}


@given(st.text(alphabet="abeiloprstyz019 .-_,", min_size=1, max_size=40))
@settings(max_examples=500, deadline=None)
def test_whoosh_analyses_a_text_as_analyze_does(text: str) -> None:
    assert [t.text for t in whoosh_analyzer()(text)] == analyze(text)


def test_an_items_labels_are_its_topic_words() -> None:
    labelled = art("STORY-0001", "Gate", metadata={"labels": ["mqtt", "ha-discovery", 3]})
    assert topic_words(labelled) == "mqtt ha-discovery"
    assert topic_words(art("STORY-0002", "Gate")) == ""
    assert topic_words(art("STORY-0003", "Gate", metadata={"labels": "mqtt"})) == ""
    hidden = art("STORY-0004", "Gate", metadata={"labels": ["mqtt"], "withheld": True})
    assert topic_words(hidden) == ""
    assert indexed_text(labelled).startswith("STORY-0001 Gate mqtt ha-discovery\n")


def test_labels_are_indexed_with_the_title(tmp_path: Path, backend: Backend) -> None:
    ix = KeywordIndex(tmp_path / "labels", backend)
    docs = [art("STORY-0001", "Drip interval", "Slow it down.", metadata={"labels": ["mqtt"]}),
            art("STORY-0002", "Mqtt broker", "Retry on mqtt loss."),
            art("STORY-0003", "Secret", "Hidden.", metadata={"labels": ["mqtt"], "withheld": True})]
    ix.rebuild(docs, len(docs), revision=1)
    assert set(search(ix, "mqtt")) == {"STORY-0001", "STORY-0002"}
