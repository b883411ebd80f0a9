"""`revetly backfill --dry-run` on a full instance prices the inferred half: the episodes to
extract and their calls and tokens at the rate this instance's passes measured."""

from __future__ import annotations

from pathlib import Path

from revetly_core.inferred.price import per_episode, price_inferred
from revetly_core.store.inferred import InferredStore

from tests.core.gitrepo import Instance
from tests.core.inferred.conftest import STORIES, FakeLlm, write_stories


def test_the_rate_is_what_the_passes_spent_per_episode() -> None:
    meta = {"spent_episodes": "4", "spent_model_calls": "20", "spent_prompt_tokens": "400",
            "spent_completion_tokens": "40"}
    assert per_episode(meta) == {"model_calls": 5.0, "prompt_tokens": 100.0,
                                 "completion_tokens": 10.0}
    assert per_episode({}) is None


def test_before_any_episode_the_price_says_it_cannot_be_estimated(tmp_path: Path) -> None:
    price = price_inferred(tmp_path, 12)
    assert price["episodes"] == 12 and price["estimate"] is None and "sync" in price["note"]


def test_pending_episodes_are_priced_with_the_new_ones(tmp_path: Path) -> None:
    InferredStore(tmp_path).set_meta({"pending": "3", "spent_episodes": "2",
                                      "spent_model_calls": "10", "spent_prompt_tokens": "100",
                                      "spent_completion_tokens": "6"})
    price = price_inferred(tmp_path, 7)
    assert price["episodes"] == 10
    assert price["estimate"] == {"model_calls": 50, "prompt_tokens": 500, "completion_tokens": 30}


def test_the_dry_run_prices_at_the_rate_sync_reported(instance: Instance,
                                                      fake_llm: FakeLlm) -> None:
    inst = write_stories(instance, fake_llm.config())
    spent = inst.sync()["inferred"]
    plan = inst.engine().backfill(dry_run=True)
    assert plan["dry_run"] is True
    rate = spent["model_calls"] / len(STORIES)
    assert plan["inferred"]["episodes"] == plan["commits"]
    if plan["commits"]:
        assert plan["inferred"]["estimate"]["model_calls"] == round(rate * plan["commits"])
    assert plan["inferred"]["estimate_from"] == f"{len(STORIES)} episodes this instance extracted"
