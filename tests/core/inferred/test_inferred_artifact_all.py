"""get_artifact(inferred='all') on a full instance: the inferred summary whole and every
inferred edge of a branch listed, under the read budget alone; any other value is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.reads.inferred import BRANCH_SAMPLE, branch_inferred, check_inferred, sentences
from revetly_core.refusal import Refusal
from revetly_core.store.inferred import Extracted, InferredLink, InferredStore

from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import FakeLlm, write_stories


def test_inferred_takes_absent_or_all_and_refuses_the_rest_by_name() -> None:
    assert check_inferred(None, "get_artifact") is False
    assert check_inferred("all", "get_artifact") is True
    with pytest.raises(Refusal) as caught:
        check_inferred("some", "get_artifact")
    assert caught.value.code == "invalid-argument"
    assert "get_artifact" in caught.value.detail


def _filled(folder: Path, artifacts: int, links: int) -> InferredStore:
    store = InferredStore(folder)
    store.write([Extracted(f"STORY-{n:04d}", f"uuid-{n}", "d", "A summary.", [],
                           [InferredLink(f"Thing {k}", None, "RELATES_TO", f"It relates {k}.")
                            for k in range(links)])
                 for n in range(artifacts)], [])
    return store


def test_the_branch_lists_every_inferred_edge_with_all(tmp_path: Path) -> None:
    store = _filled(tmp_path, 3, 5)
    ids = ["STORY-0000", "STORY-0001", "STORY-0002"]
    sampled = branch_inferred(store, ids)
    assert sampled["total"] == 15 and len(sampled["listed"]) == BRANCH_SAMPLE
    whole = branch_inferred(store, ids, None)
    assert whole["total"] == 15 and len(whole["listed"]) == 15
    assert whole["listed"][:BRANCH_SAMPLE] == sampled["listed"]  # the sample is its head


@pytest.fixture()
def full(instance: Instance, fake_llm: FakeLlm) -> Instance:
    inst = write_stories(instance, fake_llm.config())
    inst.sync()
    return inst


def test_all_serves_the_inferred_summary_whole(full: Instance) -> None:
    held = InferredStore(full.root / ".revetly" / "index").of_artifact("STORY-0001")
    assert held is not None
    whole = full.engine().get_artifact("STORY-0001", inferred="all")
    assert whole["inferred_summary"] == " ".join(sentences(held.summary))
    assert "inferred_summary_truncated" not in whole
    capped = full.engine().get_artifact("STORY-0001")
    assert len(sentences(capped["inferred_summary"])) == min(2, len(sentences(held.summary)))
    assert {k: v for k, v in whole.items() if not k.startswith("inferred_summary")} == \
        {k: v for k, v in capped.items() if not k.startswith("inferred_summary")}


def test_all_reaches_the_branch_and_the_record(full: Instance) -> None:
    branch = full.engine().get_artifact("STORY-0001", depth=1, inferred="all")
    assert len(branch["inferred"]["listed"]) == branch["inferred"]["total"]
    record = full.engine().get_artifact("STORY-0001", history_after="", inferred="all")
    assert record["inferred_links"] == full.engine().get_artifact(
        "STORY-0001", history_after="")["inferred_links"]


def test_another_value_is_refused(full: Instance) -> None:
    with pytest.raises(Refusal) as caught:
        full.engine().get_artifact("STORY-0001", inferred="everything")
    assert caught.value.code == "invalid-argument"
    assert caught.value.extra == {"argument": "inferred"}


def test_all_on_a_lite_instance_changes_nothing(instance: Instance) -> None:
    inst = write_stories(instance)
    inst.sync()
    assert inst.engine().get_artifact("STORY-0001", inferred="all") == \
        inst.engine().get_artifact("STORY-0001")
