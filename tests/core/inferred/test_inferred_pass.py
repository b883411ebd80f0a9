"""The read pass on a full instance: each artifact an episode in graphiti-core's real pipeline
over a real Kuzu database, the cost reported, the graph rebuilt from CONTEXT, a failing provider
degrading the inferred half only."""

from __future__ import annotations

import shutil

from revetly_core.store.inferred import InferredStore

from tests.core.gitrepo import Instance, md
from tests.core.inferred.conftest import STORIES, FakeLlm, write_stories


def inferred_of(inst: Instance) -> InferredStore:
    return InferredStore(inst.root / ".revetly" / "index")


def test_sync_feeds_each_artifact_as_an_episode_and_reports_its_cost(
        instance: Instance, fake_llm: FakeLlm) -> None:
    before = fake_llm.count()["chat_calls"]
    inst = write_stories(instance, fake_llm.config())
    report = inst.sync()["inferred"]
    assert report["episodes"] == len(STORIES) and report["pending"] == 0
    assert report["rebuilt"] is True and "degraded" not in report
    assert report["model_calls"] == fake_llm.count()["chat_calls"] - before > 0
    assert report["prompt_tokens"] > 0 and report["completion_tokens"] > 0
    assert set(inferred_of(inst).episodes()) == {a for a, _, _ in STORIES}
    assert (inst.root / ".revetly" / "index" / "graph" / "graph.kuzu").exists()


def test_an_unchanged_artifact_is_not_extracted_again(instance: Instance, fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    inst.sync()
    inst.git.write("backlog/STORY-0003.md", md("STORY-0003", "Invoice export", "story",
                                               "Finance downloads invoices as CSV for Acme Corp.",
                                               status="ready", created="2025-01-10",
                                               updated="2025-01-11"))
    inst.git.commit("edit one")
    report = inst.sync()["inferred"]
    assert report["episodes"] == 1 and report["rebuilt"] is False
    assert report["kept"] == len(STORIES) - 1


def test_the_inferred_graph_is_rebuilt_from_context(instance: Instance, fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    inst.sync()
    first = inst.engine().get_artifact("STORY-0001")["inferred_summary"]
    shutil.rmtree(inst.root / ".revetly" / "index" / "graph")
    report = inst.sync(full=True)["inferred"]
    assert report["rebuilt"] is True and report["episodes"] == len(STORIES)
    assert inst.engine().get_artifact("STORY-0001")["inferred_summary"] == first


def test_a_provider_failing_mid_pass_degrades_the_inferred_half_only(
        instance: Instance, fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    fake_llm.mode("5xx")
    result = inst.sync()
    assert result["outcome"] == "succeeded"
    assert result["inferred"]["pending"] == len(STORIES)
    assert "fake outage" in result["inferred"]["degraded"]["error"]
    health = inst.health()
    assert health["inferred"]["degraded"] is True and health["inferred"]["pending"] == len(STORIES)
    assert "The Payment Gateway retries" in inst.engine().get_artifact("STORY-0001")["body"]
    fake_llm.mode("ok")
    again = inst.sync()["inferred"]
    assert again["episodes"] == len(STORIES) and "degraded" not in again
    assert inst.health()["inferred"]["degraded"] is False


def test_garbage_from_the_provider_degrades_the_inferred_half_only(
        instance: Instance, fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    fake_llm.mode("garbage")
    result = inst.sync()
    assert result["outcome"] == "succeeded" and result["inferred"]["pending"] == len(STORIES)
    assert result["inferred"]["degraded"]["error"]


def test_a_lite_instance_runs_no_inferred_step(instance: Instance) -> None:
    inst = write_stories(instance)
    assert "inferred" not in inst.sync()
    assert not inferred_of(inst).present()


def test_a_changed_extraction_model_rebuilds_the_graph(instance: Instance,
                                                        fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    inst.sync()
    inst.git.write("revetly.toml", inst.git.read("revetly.toml").replace(
        'model = "fake-extractor"', 'model = "fake-extractor-2"'))
    inst.git.commit("another model")
    report = inst.sync()["inferred"]
    assert report["rebuilt"] is True and report["episodes"] == len(STORIES)


def test_a_withdrawn_artifact_keeps_its_extraction(instance: Instance, fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    inst.sync()
    kept = inferred_of(inst).episodes()["STORY-0003"]
    inst.git.remove("backlog/STORY-0003.md")
    inst.git.commit("remove one")
    report = inst.sync()["inferred"]
    assert report["removed"] == 0 and report["episodes"] == 0
    assert inferred_of(inst).episodes()["STORY-0003"] == kept  # reads mark it sources_retired


def test_only_an_artifact_context_no_longer_holds_loses_its_episode() -> None:
    from revetly_core.inferred.sync import removed_episodes

    stored = {"A-1": ("u1", "d"), "B-1": ("u2", "d")}
    assert removed_episodes({"A-1", "B-1", "C-1"}, stored, {"A-1", "C-1"}) == ["B-1"]
