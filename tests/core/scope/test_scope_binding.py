"""get_scope(question='binding') over an artifact or a topic: one test per rule of the walk."""

from __future__ import annotations

from revetly_core.scope import binding_order

from tests.core.scope.corpus import PLATFORM_DECISIONS, Corpus


def test_a_members_own_statement_is_credited_to_it(corpus: Corpus) -> None:
    rows = corpus.rows(artifact_id="STORY-0003")
    assert rows["DEC-0010"]["bears_on"] == "STORY-0003"
    assert rows["DEC-0010"]["position"] == "own"


def test_a_members_own_statement_is_credited_to_it_not_to_its_parent(corpus: Corpus) -> None:
    rows = corpus.rows(artifact_id="FEAT-0002")
    assert rows["DEC-0012"]["bears_on"] == "TASK-0005"  # STORY-0003 sits above it, nearer
    assert "STORY-0003" not in rows["DEC-0012"].get("also_bears_on", [])


def test_the_sibling_is_never_a_step(corpus: Corpus) -> None:
    rows = corpus.rows(artifact_id="STORY-0003")
    assert "DEC-0013" not in rows  # STORY-0004 cites it; STORY-0004 is STORY-0003's sibling


def test_a_branch_reaches_what_hangs_beneath_it(corpus: Corpus) -> None:
    rows = corpus.rows(artifact_id="STORY-0003")
    assert rows["DEC-0012"]["bears_on"] == "TASK-0005"
    assert rows["DEC-0012"]["position"] == "beneath"


def test_what_the_scope_hangs_under_binds_it(corpus: Corpus) -> None:
    rows = corpus.rows(artifact_id="TASK-0005")
    assert rows["DEC-0030"]["bears_on"] == "EPIC-0001"
    assert rows["DEC-0030"]["position"] == "above"


def test_a_decision_note_reached_through_a_citing_note_is_served(corpus: Corpus) -> None:
    rows = corpus.rows(artifact_id="STORY-0003")
    assert rows["DEC-0011"]["via"] == "CONV-0020"
    assert rows["DEC-0011"]["bears_on"] == "STORY-0003"


def test_a_statement_is_reached_through_a_delivery_record(corpus: Corpus) -> None:
    assert corpus.rows(artifact_id="STORY-0003")["DEC-0021"]["via"] == "DEL-0040"


def test_a_statement_is_reached_through_a_reference(corpus: Corpus) -> None:
    assert corpus.rows(artifact_id="STORY-0003")["DEC-0023"]["via"] == "REF-0022"


def test_a_decision_a_member_cites_is_also_a_document_to_step_through(corpus: Corpus) -> None:
    rows = corpus.rows(artifact_id="STORY-0003")
    assert rows["DEC-0015"]["via"] == "DEC-0010"  # DEC-0015 supersedes the cited DEC-0010
    assert rows["DEC-0015"]["method"] == "supersedes"


def test_a_commit_is_never_a_step(corpus: Corpus) -> None:
    assert "DEC-0019" not in corpus.rows(artifact_id="STORY-0003")


def test_a_conversation_note_is_a_document_not_a_statement(corpus: Corpus) -> None:
    assert "CONV-0020" not in corpus.rows(artifact_id="STORY-0003")


def test_a_member_is_never_a_document(corpus: Corpus) -> None:
    """STORY-0003 in FEAT-0002's scope is a member, so DEC-0010 is its own, not reached via it."""
    rows = corpus.rows(artifact_id="FEAT-0002")
    assert rows["DEC-0010"]["bears_on"] == "STORY-0003"
    assert rows["DEC-0010"].get("via") is None


def test_a_note_naming_a_member_by_id_is_an_explicit_ref(corpus: Corpus) -> None:
    row = corpus.rows(artifact_id="STORY-0003")["DEC-0024"]
    assert row["method"] == "explicit-ref" and row["bears_on"] == "STORY-0003"


def test_credit_goes_to_the_nearest_member_and_others_are_also_bears_on(corpus: Corpus) -> None:
    row = corpus.rows(artifact_id="STORY-0003")["DEC-0017"]
    assert row["bears_on"] == "STORY-0003" and row["also_bears_on"] == ["TASK-0005"]


def test_ties_go_to_the_lower_id(corpus: Corpus) -> None:
    row = corpus.rows(artifact_id="FEAT-0002")["DEC-0018"]  # STORY-0003 and STORY-0004, both 1
    assert row["bears_on"] == "STORY-0003" and row["also_bears_on"] == ["STORY-0004"]


def test_also_bears_on_is_in_credit_order(corpus: Corpus) -> None:
    row = corpus.rows(artifact_id="EPIC-0001")["DEC-0017"]
    assert row["bears_on"] == "STORY-0003" and row["also_bears_on"] == ["TASK-0005"]


def test_superseded_statements_follow_the_live_ones_marked(corpus: Corpus) -> None:
    statements = corpus.binding(artifact_id="STORY-0003")["statements"]
    ids = [s["artifact_id"] for s in statements]
    assert statements[-1]["artifact_id"] == "DEC-0010"
    assert statements[-1]["superseded_by"] == ["DEC-0015"]
    assert ids.index("DEC-0015") < ids.index("DEC-0010")


def test_the_scopes_own_come_before_what_hangs_beneath_and_above(corpus: Corpus) -> None:
    statements = corpus.binding(artifact_id="STORY-0003")["statements"]
    cites = [s["position"] for s in statements
             if s["method"] == "cites" and not s.get("via") and "superseded_by" not in s]
    assert cites == sorted(cites, key=["own", "beneath", "above"].index)


def test_stronger_method_first(corpus: Corpus) -> None:
    statements = [s for s in corpus.binding(artifact_id="STORY-0003")["statements"]
                  if "superseded_by" not in s]
    ranks = [binding_order.strength(s["method"]) for s in statements]
    assert ranks == sorted(ranks)


def test_ancestors_keep_a_few_statements_each_and_count_the_rest(corpus: Corpus) -> None:
    out = corpus.binding(artifact_id="STORY-0003")
    above = [s for s in out["statements"] if s["bears_on"] == "EPIC-0001"]
    assert len(above) == binding_order.ANCESTOR_KEEP
    summary = out["ancestors_summarised"]
    assert summary["by_ancestor"] == {"EPIC-0001": PLATFORM_DECISIONS - binding_order.ANCESTOR_KEEP}
    assert summary["count"] == PLATFORM_DECISIONS - binding_order.ANCESTOR_KEEP


def test_the_scope_root_keeps_all_its_own_statements(corpus: Corpus) -> None:
    out = corpus.binding(artifact_id="EPIC-0001", limit=200)
    own = [s for s in out["statements"] if s["bears_on"] == "EPIC-0001"]
    assert len(own) == PLATFORM_DECISIONS and "ancestors_summarised" not in out


def test_a_revising_note_marks_the_member_and_is_not_served(corpus: Corpus) -> None:
    assert binding_order.BINDING_SERVES_REVISING is False
    out = corpus.binding(artifact_id="STORY-0003")
    assert "DEC-0016" not in {s["artifact_id"] for s in out["statements"]}
    assert out["scope"]["revised"] == [
        {"artifact_id": "STORY-0003", "revised_by": [{"id": "DEC-0016", "criteria": [2]}]}]


def test_a_scope_nobody_revised_carries_no_revised_key(corpus: Corpus) -> None:
    assert "revised" not in corpus.binding(artifact_id="STORY-0004")["scope"]


def test_gathered_from_names_the_document_types(corpus: Corpus) -> None:
    out = corpus.binding(artifact_id="STORY-0003")
    assert out["gathered_from"]["document_types"] == ["decision", "constraint", "assumption"]
    assert out["entity_types_present"] == {"absent": True, "reason": "lite"}
    assert out["deterministic_statements"] == len(out["statements"])


def test_an_empty_list_says_nothing_was_gathered(corpus: Corpus) -> None:
    out = corpus.binding(artifact_id="STORY-0008")
    assert out["statements"] == []
    assert "nothing was gathered" in out["note"]


def test_the_limit_cuts_the_tail_and_says_so(corpus: Corpus) -> None:
    out = corpus.binding(artifact_id="STORY-0003", limit=2)
    assert len(out["statements"]) == 2
    assert out["truncated"]["reason"] == "limit" and out["truncated"]["listed"] == 2


def test_members_name_the_chain_to_each_member_a_statement_bears_on(corpus: Corpus) -> None:
    members = {m["artifact_id"]: m for m in corpus.binding(artifact_id="FEAT-0002")["scope"]["members"]}
    assert members["TASK-0005"]["parent"] == "STORY-0003"
    assert members["STORY-0003"]["parent"] == "FEAT-0002"
    assert members["EPIC-0001"]["position"] == "above"


def test_a_topic_matched_decision_is_served_as_a_topic_match(corpus: Corpus) -> None:
    out = corpus.binding(topic="ledger rounding")
    assert out["scope"]["kind"] == "topic"
    assert out["scope"]["matched"][0]["artifact_id"] == "DEC-0025"
    assert corpus.rows(topic="ledger rounding")["DEC-0025"]["method"] == "topic-match"


def test_a_topic_walks_outward_from_a_matched_work_item(corpus: Corpus) -> None:
    rows = corpus.rows(topic="Export the ledger as CSV")
    assert "STORY-0003" in {m["artifact_id"] for m in corpus.binding(
        topic="Export the ledger as CSV")["scope"]["matched"]}
    assert "DEC-0011" in rows


def test_weaker_matches_are_counted(corpus: Corpus) -> None:
    scope = corpus.binding(topic="exports")["scope"]
    assert scope["weaker_matches"] >= 0
    assert len(scope["matched"]) >= 1


def test_a_topic_of_stopwords_and_short_words_matches_nothing_and_says_why(corpus: Corpus) -> None:
    out = corpus.binding(topic="the of an to")
    assert out["scope"]["matched"] == []
    assert "stopword" in out["scope"]["note"]


def test_depth_narrows_the_branch_beneath(corpus: Corpus) -> None:
    whole = corpus.rows(artifact_id="FEAT-0002")
    shallow = corpus.binding(artifact_id="FEAT-0002", depth=1)
    rows = {s["artifact_id"]: s for s in shallow["statements"]}
    assert "DEC-0012" in whole and "DEC-0012" not in rows  # TASK-0005 is two levels down
    assert "DEC-0010" in rows and shallow["scope"]["depth"] == 1
