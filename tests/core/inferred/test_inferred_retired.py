"""sources_retired and inferred_retired: an inferred fact or statement read only out of bodies
their sources have since revised, withdrawn, superseded or discarded follows the live inferred
rows, marked, and is counted; none is removed."""

from __future__ import annotations

import pytest
from revetly_core.reads.inferred import retired_last, retired_sources, sources_retired

from tests.core.gitrepo import Instance, md
from tests.core.inferred.conftest import FakeLlm, write_stories
from tests.core.inferred.test_inferred_branch import with_epic


def test_a_row_is_retired_only_when_every_source_is() -> None:
    assert sources_retired({"A-1"}, {"A-1", "B-1"})
    assert not sources_retired({"A-1", "C-1"}, {"A-1"})
    assert not sources_retired(set(), {"A-1"})


def test_the_retired_rows_follow_the_live_ones_none_removed() -> None:
    assert retired_last(["a", "b", "c", "d"], [True, False, True, False]) == ["b", "d", "a", "c"]


def test_revised_withdrawn_superseded_and_discarded_sources_are_retired(
        instance: Instance) -> None:
    g = instance.git
    for artifact_id, status in (("STORY-0001", "ready"), ("STORY-0002", "ready"),
                                ("STORY-0003", "discarded"), ("STORY-0004", "ready"),
                                ("STORY-0005", "ready")):
        g.write(f"backlog/{artifact_id}.md", md(artifact_id, f"Story {artifact_id}", "story",
                                                "Words.", status=status))
    g.write("notes/DEC-0001.md", md("DEC-0001", "Replaces four", "decision", "Four is gone.",
                                    status="accepted", supersedes=["STORY-0004"]))
    g.write("notes/DEC-0002.md", md("DEC-0002", "Revises five", "decision", "Five changed.",
                                    status="accepted",
                                    revises=[{"id": "STORY-0005", "criteria": [1]}]))
    g.commit("seed")
    instance.sync()
    g.remove("backlog/STORY-0002.md")
    g.commit("withdraw two")
    instance.sync()
    with instance.store() as store:
        retired = retired_sources(store, [f"STORY-000{n}" for n in range(1, 6)])
    assert retired == {"STORY-0002", "STORY-0003", "STORY-0004", "STORY-0005"}


QUERY = "stripe webhook event queue"


@pytest.fixture()
def full(instance: Instance, fake_llm: FakeLlm) -> Instance:
    inst = with_epic(write_stories(instance, fake_llm.config()))
    inst.sync()
    return inst


def _discard(inst: Instance, artifact_id: str) -> None:
    path = f"backlog/{artifact_id}.md"
    inst.git.write(path, inst.git.read(path).replace("status: ready", "status: discarded"))
    inst.git.commit(f"discard {artifact_id}")
    inst.sync()


def test_search_marks_and_demotes_the_facts_of_a_discarded_source(full: Instance) -> None:
    before = full.engine().search_context(QUERY)
    inferred_before = [f for f in before["facts"] if f["band"] == "inferred"]
    assert inferred_before and "inferred_retired" not in before
    _discard(full, "STORY-0002")
    after = full.engine().search_context(QUERY, inferred="all")
    inferred = [f for f in after["facts"] if f["band"] == "inferred"]
    retired = [f for f in inferred if f.get("sources_retired")]
    assert retired and all(f["endpoints"][0] == "STORY-0002" for f in retired)
    assert after["inferred_retired"] == {"count": len(retired)}
    flags = [bool(f.get("sources_retired")) for f in inferred]
    assert flags == sorted(flags)  # every live one first


def test_binding_marks_and_demotes_the_statements_of_a_discarded_source(
        full: Instance) -> None:
    before = full.engine().get_scope("binding", artifact_id="EPIC-0001", limit=50)
    total = before["inferred_statements"]["total"]
    assert "inferred_retired" not in before
    _discard(full, "STORY-0002")
    after = full.engine().get_scope("binding", artifact_id="EPIC-0001", limit=50)
    inferred = [s for s in after["statements"]
                if s.get("method") == "inferred (graphiti extraction)"]
    retired = [s for s in inferred if s.get("sources_retired")]
    assert after["inferred_statements"]["total"] == total  # demoted, none removed
    assert retired and {s["artifact_id"] for s in retired} == {"STORY-0002"}
    assert after["inferred_retired"] == {"count": len(retired)}
    flags = [bool(s.get("sources_retired")) for s in inferred]
    assert flags == sorted(flags)  # every live one first


def test_a_withdrawn_source_is_read_marked_when_deleted_work_is_asked_for(
        full: Instance) -> None:
    full.git.remove("backlog/STORY-0002.md")
    full.git.commit("withdraw two")
    full.sync()
    live = full.engine().search_context(QUERY, inferred="all")
    assert "STORY-0002" not in {f["endpoints"][0] for f in live["facts"] if f["band"] == "inferred"}
    marked = full.engine().search_context(QUERY, inferred="all", deleted="include")
    from_two = [f for f in marked["facts"]
                if f["band"] == "inferred" and f["endpoints"][0] == "STORY-0002"]
    assert from_two and all(f.get("sources_retired") for f in from_two)
    assert marked["inferred_retired"]["count"] >= len(from_two)
