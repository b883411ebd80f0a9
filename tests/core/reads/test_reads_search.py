"""search_context on a real instance: legs, signals, marks, cuts, refusals, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from revetly_core.reads.budget import payload_bytes
from revetly_core.refusal import Refusal

from tests.core.gitrepo import Instance, md

DAY = 86_400
T0 = 1_735_000_000


def story(n: int, title: str, body: str, **kw: object) -> str:
    return md(f"STORY-{n:04d}", title, "story", f"# {title}\n\n{body}\n\n## Acceptance criteria\n\n"
              "- The export holds every invoice\n- Totals keep two decimals\n",
              status="ready", created="2025-01-10", updated="2025-01-10", **kw)


@pytest.fixture()
def corpus(instance: Instance) -> Instance:
    g = instance.git
    g.write("backlog/EPIC-0001.md", md("EPIC-0001", "Billing exports", "epic", "Everything billing.",
                                       status="in-progress", created="2025-01-01",
                                       updated="2025-01-01"))
    g.write("backlog/STORY-0001.md", story(1, "Export invoices as CSV",
                                           "Finance downloads a spreadsheet of invoices.",
                                           parent="EPIC-0001"))
    g.write("backlog/STORY-0002.md", story(2, "Dunning reminder emails",
                                           "Overdue customers get a reminder email."))
    g.write("backlog/STORY-0003.md", story(3, "Login with single sign-on",
                                           "People log in through their identity provider."))
    g.write("notes/DEC-0001.md", md("DEC-0001", "Invoices export as CSV only", "decision",
                                    "## Decision\n\nWe export invoices as CSV; no PDF yet.",
                                    status="superseded", created="2025-01-05",
                                    updated="2025-01-05"))
    g.write("notes/DEC-0002.md", md("DEC-0002", "Invoices export as CSV and PDF", "decision",
                                    "## Decision\n\nInvoices export as CSV and as PDF.",
                                    status="accepted", supersedes=["DEC-0001"],
                                    created="2025-01-20", updated="2025-01-20"))
    g.write("notes/DEC-0003.md", md("DEC-0003", "Widen the export criteria", "decision",
                                    "STORY-0001 acceptance criterion 2 now keeps four decimals.",
                                    status="accepted", created="2025-02-01", updated="2025-02-01",
                                    revises=[{"id": "STORY-0001", "criteria": [2],
                                              "criteria_fp": ["00000000"]}]))
    g.write("notes/CONV-0001.md", md("CONV-0001", "Talk with finance", "conversation",
                                     "Finance asked for spreadsheet downloads of ledgers.",
                                     created="2025-01-03", updated="2025-01-03"))
    g.commit("corpus", when=T0)
    cfg = g.read("revetly.toml") + '\n[extraction.aliases]\n"single sign-on" = ["SSO"]\n'
    g.write_and_commit({"revetly.toml": cfg}, "aliases", when=T0 + DAY)
    instance.sync()
    return instance


def search(inst: Instance, query: str, **kw: object) -> dict:  # type: ignore[type-arg]
    return inst.engine().search_context(query, **kw)  # type: ignore[no-any-return]


def ids(payload: dict) -> list[str]:  # type: ignore[type-arg]
    return [a["artifact_id"] for a in payload["artifacts"]]


def test_the_same_call_gives_identical_bytes(corpus: Instance) -> None:
    a = json.dumps(search(corpus, "export invoices"))
    b = json.dumps(search(corpus, "export invoices"))
    assert a == b


def test_rows_carry_summary_links_and_the_keyword_method(corpus: Instance) -> None:
    p = search(corpus, "export invoices csv")
    row = next(a for a in p["artifacts"] if a["artifact_id"] == "STORY-0001")
    assert row["summary"].startswith("Export invoices as CSV — ")
    assert row["method"] == "keyword (english stemming)"
    assert p["concepts"] == {"absent": True, "reason": "lite"}
    assert p["inferred_facts"] == {"absent": True, "reason": "lite"}


def test_superseded_rows_are_marked_and_demoted(corpus: Instance) -> None:
    p = search(corpus, "invoices export csv decision")
    order = ids(p)
    old = next(a for a in p["artifacts"] if a["artifact_id"] == "DEC-0001")
    assert old["superseded_by"] == ["DEC-0002"]
    assert order.index("DEC-0002") < order.index("DEC-0001")


def test_a_revised_story_carries_revised_by_with_criterion_changed(corpus: Instance) -> None:
    p = search(corpus, "export invoices csv")
    row = next(a for a in p["artifacts"] if a["artifact_id"] == "STORY-0001")
    assert row["revised_by"] == [{"id": "DEC-0003", "criteria": [2], "criterion_changed": True}]


def test_an_id_query_serves_that_story_first(corpus: Instance) -> None:
    assert ids(search(corpus, "STORY-0002"))[0] == "STORY-0002"


def test_a_declared_alias_answers_for_its_term(corpus: Instance) -> None:
    assert "STORY-0003" in ids(search(corpus, "SSO"))


def test_feedback_leg_is_off_by_default(corpus: Instance) -> None:
    p = search(corpus, "dunning", limit=10)
    assert {a["method"] for a in p["artifacts"]} == {"keyword (english stemming)"}


def test_feedback_leg_reaches_rows_in_other_words_and_labels_them(corpus: Instance) -> None:
    cfg = corpus.git.read("revetly.toml") + "\n[ranking]\nfeedback = 0.5\n"
    corpus.git.write_and_commit({"revetly.toml": cfg}, "feedback leg on", when=T0 + 2 * DAY)
    corpus.sync()
    p = search(corpus, "dunning", limit=10)
    methods = {a["artifact_id"]: a["method"] for a in p["artifacts"]}
    assert methods["STORY-0002"] == "keyword (english stemming)"
    assert all(m in ("keyword (english stemming)", "keyword (english stemming, feedback terms)")
               for m in methods.values())


def test_passages_are_prose_never_frontmatter(corpus: Instance) -> None:
    p = search(corpus, "spreadsheet invoices")
    assert p["passages"]
    for passage in p["passages"]:
        assert "id:" not in passage["text"] and "title:" not in passage["text"]
        assert passage["words"]


def test_facts_lead_with_declared_relations_and_count_them(corpus: Instance) -> None:
    p = search(corpus, "export invoices csv", limit=5)
    bands = [f["band"] for f in p["facts"]]
    assert bands == sorted(bands, key=lambda b: b != "declared")
    assert p["deterministic_facts"] == bands.count("declared")
    assert len(p["facts"]) <= 5
    for f in p["facts"]:
        assert f["endpoints"]


def test_deleted_work_is_out_by_default_and_marked_when_included(corpus: Instance) -> None:
    corpus.git.remove_and_commit(["backlog/STORY-0002.md"], when=T0 + 2 * DAY)
    corpus.sync()
    assert "STORY-0002" not in ids(search(corpus, "dunning reminder"))
    included = search(corpus, "dunning reminder", deleted="include")
    row = next(a for a in included["artifacts"] if a["artifact_id"] == "STORY-0002")
    assert row["deleted"] is True and row["deleted_clock"] == "source-declared"
    only = search(corpus, "dunning reminder invoices", deleted="only")
    assert ids(only) == ["STORY-0002"]


def test_a_small_budget_is_never_exceeded_and_cuts_are_named(
    corpus: Instance, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REVETLY_READ_BUDGET", "2048")
    p = search(corpus, "export invoices csv finance", limit=10)
    assert payload_bytes(p) <= 2048
    assert any(k.startswith("truncated_") for k in p)


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"query": ""}, "invalid-argument"),
    ({"query": "the of a"}, "empty-query"),
    ({"query": "x" * 10_000}, "invalid-argument"),
    ({"query": "export", "limit": 0}, "invalid-argument"),
    ({"query": "export", "limit": 500}, "invalid-argument"),
    ({"query": "export", "deleted": "maybe"}, "invalid-argument"),
    ({"query": "export", "inferred": "some"}, "invalid-argument"),
    ({"query": "export", "project": "nope"}, "unknown-project"),
])
def test_bad_arguments_are_refusals(corpus: Instance, kwargs: dict, code: str) -> None:  # type: ignore[type-arg]
    query = kwargs.pop("query")
    with pytest.raises(Refusal) as err:
        search(corpus, query, **kwargs)
    assert err.value.code == code
    assert set(err.value.payload()["refusal"]) >= {"code", "detail", "fix"}


def test_freshness_rides_every_answer(corpus: Instance) -> None:
    p = search(corpus, "export")
    assert p["freshness"]["watch"] is False
    assert p["freshness"]["oldest_source_read_at"]


def test_pull_revising_serves_the_newest_revising_note_ahead_of_its_story(
    corpus: Instance, monkeypatch: pytest.MonkeyPatch
) -> None:
    from revetly_core.reads import retrieval

    assert "DEC-0003" not in ids(search(corpus, "spreadsheet"))
    monkeypatch.setattr(retrieval, "PULL_REVISING", True)
    p = search(corpus, "spreadsheet")
    order = ids(p)
    assert order.index("DEC-0003") == order.index("STORY-0001") - 1
    pulled = next(a for a in p["artifacts"] if a["artifact_id"] == "DEC-0003")
    assert pulled["method"] == "revises"


def test_a_retired_declared_relation_is_counted_and_read_marked_with_include(
    corpus: Instance,
) -> None:
    text = corpus.git.read("notes/DEC-0002.md").replace("supersedes:\n- DEC-0001\n", "")
    corpus.git.write_and_commit({"notes/DEC-0002.md": text}, when=T0 + 3 * DAY)
    corpus.sync()
    p = search(corpus, "invoices export csv decision")
    assert p["invalidated"] == {"count": 1}
    assert all(not f.get("invalidated") for f in p["facts"])
    marked = search(corpus, "invoices export csv decision", deleted="include")
    retired = [f for f in marked["facts"] if f.get("invalidated")]
    assert retired and retired[0]["endpoints"] == ["DEC-0002", "DEC-0001"]


def test_links_into_deleted_neighbours_carry_other_deleted_when_included(corpus: Instance) -> None:
    corpus.git.write_and_commit({"notes/CONV-0002.md": md(
        "CONV-0002", "Dunning follow-up", "conversation", "We talked about dunning emails.",
        cites=["STORY-0002"], created="2025-01-04", updated="2025-01-04")}, when=T0 + 2 * DAY)
    corpus.git.remove_and_commit(["backlog/STORY-0002.md"], when=T0 + 3 * DAY)
    corpus.sync()
    live = search(corpus, "dunning follow-up")
    row = next(a for a in live["artifacts"] if a["artifact_id"] == "CONV-0002")
    assert "cites" not in row["links"]
    marked = search(corpus, "dunning follow-up", deleted="include")
    row = next(a for a in marked["artifacts"] if a["artifact_id"] == "CONV-0002")
    assert row["links"]["cites"] == {"ids": ["STORY-0002"], "other_deleted": ["STORY-0002"]}


@pytest.fixture()
def tree(instance: Instance) -> Instance:
    """A parent with three children, one child worded exactly like the parent, and a story that
    two others cite; link-count declared on (it is off by default)."""
    g = instance.git
    same = "Ledger rows reconcile against the bank feed."
    g.write("backlog/STORY-0020.md", md("STORY-0020", "Reconcile ledger", "story", same))
    g.write("backlog/STORY-0010.md", md("STORY-0010", "Reconcile ledger", "story", same,
                                        parent="STORY-0020"))
    for n in (11, 12):
        g.write(f"backlog/STORY-00{n}.md", md(f"STORY-00{n}", f"Audit trail part {n}", "story",
                                              "Keep an audit trail.", parent="STORY-0020"))
    g.write("backlog/STORY-0030.md", md("STORY-0030", "Currency table", "story", "Rates."))
    for n in (31, 32):
        g.write(f"backlog/STORY-00{n}.md", md(f"STORY-00{n}", f"Convert {n}", "story",
                                              "Convert amounts.", cites=["STORY-0030"]))
    g.write("revetly.toml", g.read("revetly.toml") + '\n[ranking]\n"link-count" = 0.1\n')
    g.commit("tree", when=T0)
    instance.sync()
    return instance


def test_link_count_counts_links_toward_a_row_never_tree_edges(tree: Instance) -> None:
    from revetly_core.reads.search import _declared_link_counts

    store = tree.store()
    counts = _declared_link_counts(store, ["STORY-0020", "STORY-0010", "STORY-0030",
                                                  "STORY-0031"])
    store.close()
    assert counts == {"STORY-0020": 0, "STORY-0010": 0, "STORY-0030": 2, "STORY-0031": 0}


def test_a_parent_does_not_outrank_its_equally_worded_child(tree: Instance) -> None:
    """Regression (issue 12): the parent's children counted as its links and broke the tie."""
    order = ids(search(tree, "reconcile ledger bank feed"))
    assert order.index("STORY-0010") < order.index("STORY-0020")


def _phrase_corpus(instance: Instance) -> Instance:
    g = instance.git
    g.write("backlog/STORY-0001.md", md("STORY-0001", "Nightly checks", "story",
                                        "The soak runs after the heap is sized.",
                                        status="ready", created="2025-01-10", updated="2025-01-10"))
    g.write("backlog/STORY-0002.md", md("STORY-0002", "Nightly checks", "story",
                                        "We start a long heap soak once the nightly build is done.",
                                        status="ready", created="2025-01-10", updated="2025-01-10"))
    g.commit("two stories, one with the words side by side", when=T0)
    instance.sync()
    return instance


def test_a_row_holding_the_query_words_side_by_side_ranks_first(instance: Instance) -> None:
    corpus = _phrase_corpus(instance)
    assert ids(search(corpus, "heap soak"))[:2] == ["STORY-0002", "STORY-0001"]


def test_without_the_phrase_part_the_words_alone_order_the_rows(instance: Instance) -> None:
    corpus = _phrase_corpus(instance)
    cfg = corpus.git.read("revetly.toml") + "\n[ranking]\nphrase = 0\n"
    corpus.git.write_and_commit({"revetly.toml": cfg}, "phrase part off", when=T0 + DAY)
    corpus.sync()
    assert ids(search(corpus, "heap soak"))[:2] == ["STORY-0001", "STORY-0002"]



def _many_holding_both(instance: Instance) -> Instance:
    g = instance.git
    filler = " ".join(f"filler{i}" for i in range(60))
    for n in range(1, 13):  # more rows hold both words than the all-words answer used to keep
        g.write(f"backlog/STORY-{n:04d}.md", md(
            f"STORY-{n:04d}", f"Monthly close {n}", "story",
            f"The ledger is read. {filler}. A quartz clock ticks.",
            status="ready", created="2025-01-10", updated="2025-01-10"))
    for n in range(20, 40):
        g.write(f"backlog/STORY-{n:04d}.md", md(
            f"STORY-{n:04d}", f"Unrelated work {n}", "story", "Nothing of the query here.",
            status="ready", created="2025-01-10", updated="2025-01-10"))
    g.write("backlog/STORY-0050.md", md("STORY-0050", "Quartz oscillator", "story",
                                        "Quartz quartz: the oscillator is quartz.",
                                        status="ready", created="2025-01-10", updated="2025-01-10"))
    g.commit("twelve rows with both words, one about one of them only", when=T0)
    instance.sync()
    return instance


def test_a_row_missing_a_word_but_fitting_the_rest_better_ranks_first(instance: Instance) -> None:
    """The records' pool is any word from the start (`records_pool`, decision 0011): a row
    that misses one query word can outrank rows that hold every word."""
    corpus = _many_holding_both(instance)
    assert ids(search(corpus, "ledger quartz"))[0] == "STORY-0050"


def _phrase_below_the_pool(instance: Instance) -> Instance:
    g = instance.git
    for n in range(1, 61):  # every row holds both words once, in the same-length body: a tie
        order = "heap soak" if n == 60 else "soak then heap"  # ("then" is a stop word)
        g.write(f"backlog/STORY-{n:04d}.md", md(
            f"STORY-{n:04d}", f"Nightly check {n}", "story",
            f"We run the {order} test tonight.",
            status="ready", created="2025-01-10", updated="2025-01-10"))
    g.commit("sixty rows, the last by id holding the words in the query's order", when=T0)
    instance.sync()
    return instance


def test_the_phrase_part_reaches_rows_the_words_rank_under_the_pool(instance: Instance) -> None:
    """The words gather PHRASE_REACH rows for the phrase part before the pool is cut to POOL
    (decision 0011): a row tied on words below the cut but saying the query in order comes first."""
    from revetly_core.reads.search import PHRASE_REACH, POOL

    corpus = _phrase_below_the_pool(instance)
    assert POOL < 60 <= PHRASE_REACH
    assert ids(search(corpus, "heap soak"))[0] == "STORY-0060"


def test_commits_keep_all_words_first_records_take_any_word(tmp_path: Path) -> None:
    """`commits_pool` keeps its every-word answer when AND_ENOUGH commits hold every word;
    `records_pool` ORs from the start (decision 0011)."""
    from revetly_core.model import Artifact
    from revetly_core.reads.search import AND_ENOUGH, commits_pool, records_pool
    from revetly_core.store.keyword import KeywordIndex

    def doc(aid: str, kind: str, title: str) -> Artifact:
        return Artifact(id=aid, type=kind, title=title, source="repository", project="acme",
                        body="")

    docs = [doc(f"c{n:02d}", "commit", f"ledger quartz step {n}") for n in range(AND_ENOUGH + 2)]
    docs += [doc("c99", "commit", "quartz quartz"), doc("STORY-0001", "story", "quartz quartz")]
    docs += [doc(f"STORY-{n:04d}", "story", f"ledger quartz step {n}") for n in range(2, 14)]
    ix = KeywordIndex(tmp_path / "pools", "fts5")
    ix.rebuild(docs, len(docs), revision=1)
    units = [[["ledger"]], [["quartz"]]]
    with ix.searcher() as s:
        assert "c99" not in [i for i, _ in commits_pool(s, units)]
        assert "STORY-0001" in [i for i, _ in records_pool(s, units)]
