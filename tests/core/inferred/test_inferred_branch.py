"""get_artifact's branch on a full instance: the inferred edges are counted and sampled beside
the tree, never in it, and the sample goes before any node under a tight budget."""

from __future__ import annotations

from pathlib import Path

from revetly_core.reads.inferred import drop_branch_sample

from tests.core.gitrepo import Instance, md
from tests.core.inferred.conftest import FakeLlm, write_stories


def with_epic(inst: Instance) -> Instance:
    g = inst.git
    g.write("backlog/EPIC-0001.md", md("EPIC-0001", "Payments", "epic",
                                       "Everything about taking money.", status="ready",
                                       created="2025-01-09"))
    for story in ("STORY-0001", "STORY-0002"):
        text = g.read(f"backlog/{story}.md").replace("type: story\n",
                                                     "type: story\nparent: EPIC-0001\n")
        g.write(f"backlog/{story}.md", text)
    g.commit("epic")
    return inst


def test_the_branch_counts_inferred_edges_beside_an_unchanged_tree(
        tmp_path: Path, fake_llm: FakeLlm) -> None:
    lite = with_epic(write_stories(Instance(tmp_path / "lite")))
    full = with_epic(write_stories(Instance(tmp_path / "full"), fake_llm.config()))
    lite.sync()
    full.sync()
    branch = full.engine().get_artifact("EPIC-0001", depth=1)
    assert branch["tree"] == lite.engine().get_artifact("EPIC-0001", depth=1)["tree"]
    block = branch["inferred"]
    assert block["total"] > 0 and block["listed"]
    assert {row["artifact_id"] for row in block["listed"]} >= {"STORY-0001", "STORY-0002"}
    assert all(row["method"] == "inferred (graphiti extraction)" for row in block["listed"])
    assert lite.engine().get_artifact("EPIC-0001", depth=1)["inferred"] == {
        "absent": True, "reason": "lite"}


def test_the_sample_is_dropped_and_its_counts_kept() -> None:
    block = {"total": 3, "unnamed_endpoints": 0, "listed": [{"fact": "a"}, {"fact": "b"}]}
    assert drop_branch_sample(block)
    assert block["listed"] == [] and block["total"] == 3
    assert block["listed_truncated"]["total"] == 2
    assert not drop_branch_sample(block)
