"""get_scope(question='binding') on a full instance: inferred statements below every stated one,
the stated count unchanged, and the entity types extracted from the scope's members."""

from __future__ import annotations

from tests.core.gitrepo import Instance, md
from tests.core.inferred.conftest import FakeLlm, write_stories


def with_decision(inst: Instance) -> Instance:
    inst.git.write("notes/DEC-0001.md", md("DEC-0001", "Retries stay bounded", "decision",
                                           "STORY-0001 keeps three attempts at most.",
                                           status="accepted", created="2025-01-11"))
    inst.git.commit("decision")
    return inst


def test_inferred_statements_follow_the_stated_ones(instance: Instance, fake_llm: FakeLlm) -> None:
    inst = with_decision(write_stories(instance, fake_llm.config()))
    inst.sync()
    answer = inst.engine().get_scope("binding", artifact_id="STORY-0001")
    rows = answer["statements"]
    stated = answer["deterministic_statements"]
    assert stated >= 1 and rows[0]["artifact_id"] == "DEC-0001"
    inferred = rows[stated:]
    assert inferred and all(r["method"] == "inferred (graphiti extraction)" for r in inferred)
    assert all(r["method"] != "inferred (graphiti extraction)" for r in rows[:stated])
    assert answer["inferred_statements"]["served"] == len(inferred)
    assert answer["entity_types_present"] == ["Decision"]


def test_a_small_limit_keeps_every_stated_statement(instance: Instance, fake_llm: FakeLlm) -> None:
    inst = with_decision(write_stories(instance, fake_llm.config()))
    inst.sync()
    answer = inst.engine().get_scope("binding", artifact_id="STORY-0001", limit=1)
    assert [r["artifact_id"] for r in answer["statements"]] == ["DEC-0001"]
    assert answer["inferred_statements"]["served"] == 0
    assert answer["inferred_statements"]["total"] > 0


def test_a_lite_binding_reads_the_inferred_keys_absent(instance: Instance) -> None:
    inst = with_decision(write_stories(instance))
    inst.sync()
    answer = inst.engine().get_scope("binding", artifact_id="STORY-0001")
    assert answer["entity_types_present"] == {"absent": True, "reason": "lite"}
    assert answer["inferred_statements"] == {"absent": True, "reason": "lite"}
