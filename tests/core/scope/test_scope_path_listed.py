"""How many stories a path binding lists: five by default, up to the limit the caller gives."""

from __future__ import annotations

from typing import Any

import pytest
from revetly_core.reads.budget import ENV_READ_BUDGET
from revetly_core.scope.behind import STORIES_LISTED, stories_listed

from tests.core.scope.crowded import STORIES, Crowded, build_crowded


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Crowded:
    return build_crowded(tmp_path_factory.mktemp("crowded"))


def stories(out: dict[str, Any]) -> list[str]:
    return [b["artifact_id"] for b in out["behind"] if b["kind"] == "story"]


def test_stories_listed_is_five_without_a_limit_and_the_limit_with_one() -> None:
    assert stories_listed(None) == STORIES_LISTED == 5
    assert stories_listed(10) == 10
    assert stories_listed(2) == 2


def test_without_a_limit_a_path_lists_five_stories(crowded: Crowded) -> None:
    out = crowded.binding()
    assert stories(out) == crowded.order[:5]
    assert out["more_ranked"] == STORIES - 5


def test_a_limit_lists_up_to_that_many_stories(crowded: Crowded) -> None:
    out = crowded.binding(limit=7)
    assert stories(out) == crowded.order[:7]
    assert out["more_ranked"] == 1


def test_a_limit_past_the_ranked_lists_them_all(crowded: Crowded) -> None:
    out = crowded.binding(limit=50)
    assert stories(out) == crowded.order
    assert out["more_ranked"] == 0


def test_a_limit_under_five_lists_fewer(crowded: Crowded) -> None:
    out = crowded.binding(limit=2)
    assert stories(out) == crowded.order[:2]
    assert out["more_ranked"] == STORIES - 2


def test_a_longer_list_is_a_prefix_extended(crowded: Crowded) -> None:
    short, long = stories(crowded.binding(limit=3)), stories(crowded.binding(limit=8))
    assert long[:3] == short


def test_statements_are_gathered_over_the_same_leading_stories(crowded: Crowded) -> None:
    assert crowded.binding()["scope"]["roots"] == crowded.binding(limit=8)["scope"]["roots"]


def test_an_over_budget_behind_is_cut_from_its_tail_and_says_so(
    crowded: Crowded, monkeypatch: pytest.MonkeyPatch,
) -> None:
    whole = stories(crowded.binding(limit=8))
    monkeypatch.setenv(ENV_READ_BUDGET, "1500")
    out = crowded.binding(limit=8)
    cut = out["behind_truncated"]
    assert cut["total"] == 8 and 0 < cut["listed"] == len(out["behind"]) < 8
    assert stories(out) == whole[:cut["listed"]]
