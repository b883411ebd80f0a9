"""search_context on a full instance: concepts with summary_sentences_total, the inferred fact
band after the stated ones, inferred_cap and its truncated reports, inferred='all', and the
inferred rows cut before any stated row."""

from __future__ import annotations

import json

import pytest
from revetly_core.reads import search_inferred

from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import FakeLlm, write_stories

QUERY = "stripe webhook payment gateway"


@pytest.fixture()
def full(instance: Instance, fake_llm: FakeLlm) -> Instance:
    inst = write_stories(instance, fake_llm.config())
    inst.sync()
    return inst


def test_concepts_are_served_apart_from_the_artifacts(full: Instance) -> None:
    found = full.engine().search_context(QUERY)
    names = {c["name"] for c in found["concepts"]}
    assert "Stripe Webhook" in names
    assert not names & {r["artifact_id"] for r in found["artifacts"]}
    for concept in found["concepts"]:
        assert concept["method"] == "inferred (graphiti extraction)"
        assert concept["summary_sentences_total"] >= len(
            [s for s in concept["summary"].split(". ") if s]) - 1
        assert concept["mentioned_by"]


def test_the_inferred_band_follows_the_stated_bands(full: Instance) -> None:
    found = full.engine().search_context(QUERY)
    bands = [f["band"] for f in found["facts"]]
    assert "inferred" in bands
    first_inferred = bands.index("inferred")
    assert all(b == "inferred" for b in bands[first_inferred:])
    assert found["deterministic_facts"] == bands.count("declared")
    assert found["inferred_facts"]["served"] == bands.count("inferred")
    assert len(found["facts"]) <= 10


def test_the_inferred_cap_counts_what_it_served_and_reports_the_cut(
        full: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_inferred, "CAP_CONCEPTS", 1)
    monkeypatch.setattr(search_inferred, "CAP_FACTS", 1)
    found = full.engine().search_context(QUERY)
    assert found["inferred_cap"]["concepts"] == len(found["concepts"]) == 1
    assert found["inferred_cap"]["summary_sentences"] == 2
    assert found["truncated_concepts"]["reason"] == "inferred-cap"
    assert found["truncated_concepts"]["total"] > 1
    assert found["truncated_facts"]["reason"] == "inferred-cap"
    widened = full.engine().search_context(QUERY, inferred="all")
    assert len(widened["concepts"]) == found["truncated_concepts"]["total"]
    assert "truncated_concepts" not in widened
    assert widened["inferred_cap"]["summary_sentences"] is None


def test_over_budget_the_inferred_rows_go_before_any_stated_row(
        full: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = full.engine().search_context(QUERY)
    inferred_bytes = len(json.dumps(whole["concepts"])) + len(json.dumps(
        [f for f in whole["facts"] if f["band"] == "inferred"]))
    monkeypatch.setenv("REVETLY_READ_BUDGET",
                       str(max(1024, len(json.dumps(whole)) - inferred_bytes // 2)))
    cut = full.engine().search_context(QUERY)
    assert cut["artifacts"] == whole["artifacts"] and cut["passages"] == whole["passages"]
    assert [f for f in cut["facts"] if f["band"] != "inferred"] == [
        f for f in whole["facts"] if f["band"] != "inferred"]
    assert len(cut["concepts"]) < len(whole["concepts"])
    assert "truncated_concepts" in cut
