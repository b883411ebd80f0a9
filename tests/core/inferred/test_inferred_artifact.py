"""get_artifact on a full instance: inferred_summary beside the stated words, the entity types
extracted, the inferred links of the full record, and the inferred rows cut first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import FakeLlm, write_stories


@pytest.fixture()
def full(instance: Instance, fake_llm: FakeLlm) -> Instance:
    inst = write_stories(instance, fake_llm.config())
    inst.sync()
    return inst


def test_the_inferred_summary_sits_beside_the_stated_words(full: Instance) -> None:
    brief = full.engine().get_artifact("STORY-0001")
    assert "We decided the Retry Budget stays at three attempts." in brief["body"]
    assert brief["title"] == "Checkout retries payments"
    assert brief["inferred_summary"] and brief["inferred_summary"] != brief["body"]
    assert brief["full_record"]["inferred_summary"] is True
    keys = list(brief)
    assert keys.index("body") < keys.index("inferred_summary")


def test_the_inferred_summary_is_fitted_to_two_sentences(full: Instance) -> None:
    brief = full.engine().get_artifact("STORY-0001")
    from revetly_core.reads.inferred import sentences

    assert len(sentences(brief["inferred_summary"])) <= 2
    cut = brief.get("inferred_summary_truncated")
    if cut is not None:
        assert cut["reason"] == "inferred-cap" and cut["sentences_total"] > 2


def test_entity_types_present_names_what_extraction_classified(full: Instance) -> None:
    assert full.engine().get_artifact("STORY-0001")["entity_types_present"] == ["Decision"]
    assert full.engine().get_artifact("STORY-0003")["entity_types_present"] == []


def test_the_full_record_lists_inferred_links_after_the_declared_ones(full: Instance) -> None:
    record = full.engine().get_artifact("STORY-0001", history_after="")
    links = record["inferred_links"]
    assert isinstance(links, list) and links
    assert {row["method"] for row in links} == {"inferred (graphiti extraction)"}
    held = [row for row in links if row["target_id"] == "STORY-0002"]
    assert held and held[0]["name"] == "STORY-0002"
    assert record["full_record"]["inferred_links"] == len(links)
    assert record["deterministic_links"] == len(record["links"])
    assert all(row["method"] != "inferred (graphiti extraction)" for row in record["links"])


def test_under_a_tiny_budget_the_inferred_rows_go_before_any_stated_word(
        full: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = full.engine().get_artifact("STORY-0001", history_after="")
    stated = len(json.dumps({k: whole[k] for k in ("body", "title", "acceptance_criteria")}))
    monkeypatch.setenv("REVETLY_READ_BUDGET", str(max(1024, len(json.dumps(whole)) - 200)))
    cut = full.engine().get_artifact("STORY-0001", history_after="")
    assert cut["body"] == whole["body"] and "body_truncated" not in cut
    assert cut["inferred_links_truncated"]["reason"] == "read-budget" or \
        "inferred_summary" not in cut
    assert len(json.dumps({k: cut[k] for k in ("body", "title", "acceptance_criteria")})) == stated


NO_SEMANTIC = "\n[ranking]\nsemantic = 0.0\nrecipe = 0.0\n"
"""The legs a lite instance lacks switched off: what is left to differ is the inferred edges."""


def test_an_inferred_edge_never_lifts_a_rank(tmp_path: Path, fake_llm: FakeLlm) -> None:
    lite = write_stories(Instance(tmp_path / "lite"), NO_SEMANTIC)
    full = write_stories(Instance(tmp_path / "full"), NO_SEMANTIC + fake_llm.config())
    lite.sync()
    full.sync()
    assert full.engine().get_artifact("STORY-0001", history_after="")["inferred_links"]
    for query in ("webhook", "stripe webhook event queue", "payment retries"):
        ranked = [(r["artifact_id"], r["method"])
                  for r in full.engine().search_context(query)["artifacts"]]
        assert ranked == [(r["artifact_id"], r["method"])
                          for r in lite.engine().search_context(query)["artifacts"]]
