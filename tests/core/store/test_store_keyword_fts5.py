"""The FTS5 backend's own rules: one analysis shared with whoosh, safe query text, atomic writes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.model import Artifact
from revetly_core.store.keyword import IndexAnalyzer, KeywordIndex, analyze, bm25_idf, indexed_text
from revetly_core.store.keyword_fts5 import (
    DB_FILE,
    SEARCH_CACHE_KIB,
    TIE_SLACK,
    Fts5Searcher,
    analysed,
    match_expression,
    phrase_expression,
    quoted,
    settles_the_ties,
    through_ties,
)
from revetly_core.store.keyword_whoosh import analyzer as whoosh_analyzer


def art(aid: str, title: str, body: str = "") -> Artifact:
    return Artifact(id=aid, type="story", title=title, source="repository", project="acme",
                    body=body)


DOCS = [art("STORY-0001", "Payment retries", "Retry a failed card payment."),
        art("STORY-0002", "Invoice export", "Export invoices as CSV.")]


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_analysis_is_the_same_as_the_whoosh_pipeline(text: str) -> None:
    assert analyze(text) == [t.text for t in whoosh_analyzer()(text)]


def test_an_id_is_one_term_and_keeps_its_hyphen() -> None:
    assert analyze("Fixes STORY-012 in v2.1") == ["fix", "story-012", "v2.1", "v2"]


def test_the_id_and_title_are_indexed_three_times_ahead_of_the_body() -> None:
    assert indexed_text(art("STORY-0001", "Dark mode", "night")) == (
        "STORY-0001 Dark mode\n" * 3 + "night")


def test_idf_follows_bm25_and_is_zero_when_absent() -> None:
    assert bm25_idf(10, 0) == 0.0
    assert bm25_idf(10, 1) > bm25_idf(10, 5) > 0


def test_a_term_is_quoted_with_inner_quotes_doubled() -> None:
    assert quoted('say"hi') == '"say""hi"'


def test_the_match_expression_joins_spellings_and_units() -> None:
    units = [[["payment"]], [["card"], ["credit", "card"]]]
    assert match_expression(units, every=True) == '"payment" AND ("card" OR ("credit" AND "card"))'
    assert match_expression(units, every=False) == '"payment" OR ("card" OR ("credit" AND "card"))'


@given(st.text(max_size=120))
@settings(max_examples=150, deadline=None)
def test_any_query_text_searches_without_error(tmp_path_factory: pytest.TempPathFactory,
                                               text: str) -> None:
    ix = KeywordIndex(tmp_path_factory.mktemp("ix") / "index")
    ix.rebuild(DOCS, len(DOCS), revision=1)
    with ix.searcher() as s:
        s.search([[analyze(w)] for w in text.split()], 10)


def test_a_failed_rebuild_leaves_the_previous_index_serving(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "index")
    ix.rebuild(DOCS, len(DOCS), revision=1)

    def broken() -> Iterator[Artifact]:
        yield art("STORY-0009", "Half")
        raise RuntimeError("the store went away")

    with pytest.raises(RuntimeError):
        ix.rebuild(broken(), 2, revision=2)
    assert ix.revision() == 1
    assert sorted(p.name for p in ix.directory.iterdir()) == ["REVISION", DB_FILE]
    with ix.searcher() as s:
        assert [i for i, _ in s.search([[["payment"]]], 10)] == ["STORY-0001"]


def test_a_failed_update_changes_nothing(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "index")
    ix.rebuild(DOCS, len(DOCS), revision=1)
    bad = Artifact.__new__(Artifact)  # an artifact whose fields cannot be read mid-update
    with pytest.raises(AttributeError):
        ix.update([art("STORY-0001", "Renamed"), bad], existing={"STORY-0001"}, revision=2)
    assert ix.revision() == 1
    with ix.searcher() as s:
        assert [i for i, _ in s.search([[["payment"]]], 10)] == ["STORY-0001"]
        assert s.search([[["renam"]]], 10) == []


def test_a_rebuild_over_a_whoosh_index_leaves_only_the_database(tmp_path: Path) -> None:
    whoosh = KeywordIndex(tmp_path / "index", "whoosh")
    whoosh.rebuild(DOCS, len(DOCS), revision=1)
    assert whoosh.present()
    fts5 = KeywordIndex(tmp_path / "index", "fts5")
    assert not fts5.present()
    fts5.rebuild(DOCS, len(DOCS), revision=2)
    assert sorted(p.name for p in fts5.directory.iterdir()) == ["REVISION", DB_FILE]
    assert not whoosh.present()


def test_ties_are_broken_by_id(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "index")
    twins = [art("STORY-0002", "Twin rows"), art("STORY-0001", "Twin rows")]
    ix.rebuild(twins, 2, revision=1)
    with ix.searcher() as s:
        assert [i for i, _ in s.search([[["twin"]]], 10)] == ["STORY-0001", "STORY-0002"]


@given(st.lists(st.integers(min_value=0, max_value=6), max_size=40), st.integers(0, 12))
def test_the_rows_through_ties_hold_the_first_limit_by_rank_then_any_key(
    ranks: list[int], limit: int
) -> None:
    ranked = sorted(enumerate(float(r) for r in ranks), key=lambda row: row[1])
    top = through_ties(ranked, limit)
    assert top == ranked[: len(top)]
    # whatever key breaks the ties afterwards, the first `limit` are among the rows kept
    for key in (lambda row: row[0], lambda row: -row[0]):
        expected = sorted(ranked, key=lambda row: (row[1], key(row)))[:limit]
        assert sorted(top, key=lambda row: (row[1], key(row)))[:limit] == expected


@given(st.lists(st.integers(min_value=0, max_value=6), max_size=40), st.integers(1, 12),
       st.integers(0, 8))
def test_a_bounded_read_that_settles_the_ties_keeps_the_rows_the_whole_ranking_keeps(
    ranks: list[int], limit: int, slack: int
) -> None:
    ranked = sorted(enumerate(float(r) for r in ranks), key=lambda row: row[1])
    read = limit + slack
    head = ranked[:read]
    if settles_the_ties(head, limit, read):
        assert through_ties(head, limit) == through_ties(ranked, limit)
    else:  # a tie runs from the limit-th row to the last row read: more may follow
        assert len(head) == read and head[-1][1] == head[limit - 1][1]


def test_a_tie_longer_than_the_slack_reads_the_whole_ranking(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "index")
    twins = [art(f"STORY-{n:04d}", "Twin rows") for n in range(TIE_SLACK + 12, 0, -1)]
    ix.rebuild([art("STORY-9999", "Twin twin rows"), *twins], len(twins) + 1, revision=1)
    with ix.searcher() as s:
        assert isinstance(s, Fts5Searcher)
        expression = match_expression([[["twin"]]], every=False)
        answer = s._query_table("terms", expression, 3)
        assert answer == s._query_table_joined("terms", expression, 3)
        assert [i for i, _ in answer] == ["STORY-9999", "STORY-0001", "STORY-0002"]


def test_a_cut_through_tied_rows_keeps_the_lowest_ids(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "index")
    twins = [art(f"STORY-{n:04d}", "Twin rows") for n in (5, 3, 9, 1, 7)]
    ix.rebuild([art("STORY-0010", "Twin twin rows"), *twins], 6, revision=1)
    with ix.searcher() as s:
        assert [i for i, _ in s.search([[["twin"]]], 3)] == ["STORY-0010", "STORY-0001",
                                                            "STORY-0003"]


@given(st.lists(st.sampled_from(["card", "payment", "invoice", "retry", "export"]),
                min_size=1, max_size=4),
       st.integers(min_value=1, max_value=8))
@settings(max_examples=40, deadline=None)
def test_the_ranked_query_answers_what_the_joined_query_answers(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], limit: int
) -> None:
    ix = KeywordIndex(tmp_path_factory.mktemp("ix") / "index")
    bodies = ["card payment", "payment", "invoice export", "retry card", "export", "card",
              "payment retry card", "invoice", "card payment", "retry"]
    docs = [art(f"STORY-{n:04d}", "Row", body) for n, body in zip((7, 2, 9, 4, 1, 8, 3, 6, 5, 10),
                                                                  bodies, strict=True)]
    ix.rebuild(docs, len(docs), revision=1)
    with ix.searcher() as s:
        assert isinstance(s, Fts5Searcher)
        for every in (True, False):
            expression = match_expression([[analyze(w)] for w in words], every=every)
            assert s._query_table("terms", expression, limit) == \
                s._query_table_joined("terms", expression, limit)
@given(st.text(max_size=300), st.text(max_size=40), st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_build_analyzer_stores_what_analyze_gives_for_the_indexed_text(
        body: str, title: str, withheld: bool) -> None:
    a = art("STORY-0001", title, body)
    if withheld:
        a.metadata["withheld"] = True
    expected = " ".join(analyze(indexed_text(a)))
    analyzer = IndexAnalyzer(limit=8)  # a small cache: past its limit chunks are analysed afresh
    assert analysed(a, analyzer) == expected
    assert analysed(a, analyzer) == expected


@given(st.lists(st.sampled_from(["Payment,", "retries", "STORY-012.", "v2.1", "the", "a\u2003b",
                                 "x\x1cy", "na\u00efve", "\u0130stanbul", "\n", " "]), max_size=30))
@settings(max_examples=200, deadline=None)
def test_the_build_analyzer_splits_on_whitespace_without_changing_the_terms(words: list[str]) -> None:
    text = "".join(words)
    assert list(IndexAnalyzer().terms(text)) == analyze(text)


def test_the_phrase_expression_asks_each_pair_as_one_exact_phrase_any_of_them() -> None:
    assert phrase_expression([("heap", "soak"), ("task-86", "v2.1")]) == \
        '"heap soak" OR "task-86 v2.1"'


def test_phrase_scores_are_the_same_looked_up_from_the_pool_or_from_the_matches(
        tmp_path: Path) -> None:
    """`_named_among` names the matched rows from the shorter list; either way the same answer."""
    ix = KeywordIndex(tmp_path / "named", "fts5")
    docs = [art(f"STORY-{n:04d}", "Heap soak" if n % 3 == 0 else "Soak test",
                "The heap soak runs." if n % 3 == 0 else "The heap is sized, then a soak.")
            for n in range(1, 13)]
    ix.rebuild(docs, len(docs), revision=1)
    pair = [("heap", "soak")]
    everyone = [d.id for d in docs]
    with ix.searcher() as s:
        from_matches = s.phrase_scores(pair, everyone, "records")  # 4 matches < 12 ids
        from_pool = s.phrase_scores(pair, ["STORY-0003", "STORY-0004"], "records")  # 2 ids < 4
    assert set(from_matches) == {"STORY-0003", "STORY-0006", "STORY-0009", "STORY-0012"}
    assert from_pool == {"STORY-0003": from_matches["STORY-0003"]}


def test_a_searcher_reads_through_a_larger_page_cache(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "index")
    ix.rebuild(DOCS, len(DOCS), revision=1)
    with ix.searcher() as s:
        assert isinstance(s, Fts5Searcher)
        assert s._conn.execute("PRAGMA cache_size").fetchone()[0] == -SEARCH_CACHE_KIB


def test_a_fed_build_writes_what_a_rebuild_writes(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from revetly_core.store import keyword_fts5

    monkeypatch.setattr(keyword_fts5, "BUILD_BATCH", 2)
    docs = [art(f"STORY-{n:04d}", f"Title {n}", f"body of story {n} and more") for n in range(7)]
    whole = KeywordIndex(tmp_path / "whole")
    whole.rebuild(docs, len(docs), revision=3)
    fed = KeywordIndex(tmp_path / "fed")
    build = fed.start_rebuild()
    assert build is not None
    for a in docs:
        build.add(a)
    fed.finish_rebuild(build, revision=3)

    def rows(ix: KeywordIndex) -> dict[str, list[object]]:
        conn = sqlite3.connect(ix.directory / DB_FILE)
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = {n: sorted(conn.execute(f'SELECT * FROM "{n}"'), key=repr) for n in names}
        conn.close()
        return out

    assert rows(fed) == rows(whole)
    assert fed.revision() == 3


def test_an_aborted_fed_build_leaves_the_previous_index_serving(tmp_path: Path) -> None:
    ix = KeywordIndex(tmp_path / "index")
    ix.rebuild(DOCS, len(DOCS), revision=1)
    build = ix.start_rebuild()
    assert build is not None
    build.add(art("STORY-0009", "Half"))
    build.abort()
    assert ix.revision() == 1
    assert sorted(p.name for p in ix.directory.iterdir()) == ["REVISION", DB_FILE]
    with ix.searcher() as s:
        assert [i for i, _ in s.search([[["payment"]]], 10)] == ["STORY-0001"]
