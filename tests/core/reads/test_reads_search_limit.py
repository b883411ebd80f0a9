"""Limit-independent results: a search's top k is the prefix of its top k + n (issue 12)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from revetly_core.reads.search import MAX_LIMIT, POOL

from tests.core.gitrepo import Instance, md

WORDS = ("invoice", "export", "ledger", "reminder", "login", "token", "report", "tax",
         "refund", "schedule", "webhook", "archive")
STORIES = 90
"""More stories than the pool holds, so a common word matches past the pool's end."""


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    """Ninety stories over a dozen words (varied dates, parents, decisions citing them)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("REVETLY_INSTANCE", raising=False)
        inst = Instance(Path(tmp_path_factory.mktemp("limit")) / "acme")
        rng = random.Random(12)
        for n in range(1, STORIES + 1):
            title = " ".join(rng.sample(WORDS, 2))
            body = " ".join(rng.choices(WORDS, k=rng.randint(3, 30)))
            day = 1 + n % 28
            inst.git.write(f"backlog/STORY-{n:04d}.md", md(
                f"STORY-{n:04d}", title.capitalize(), "story", f"{body}\n",
                status="ready", created=f"2025-0{1 + n % 9}-{day:02d}",
                updated=f"2025-0{1 + n % 9}-{day:02d}",
                parent="EPIC-0001" if n % 7 == 0 else None))
        inst.git.write("backlog/EPIC-0001.md", md("EPIC-0001", "Invoice ledger", "epic",
                                                  "invoice ledger export\n", status="ready"))
        for n in range(1, 9):
            inst.git.write(f"notes/DEC-{n:04d}.md", md(
                f"DEC-{n:04d}", f"Decide the {WORDS[n]}", "decision",
                f"We keep {WORDS[n]} and {WORDS[n + 1]} as STORY-{n * 3:04d} asks; "
                "acceptance criterion 2 widens.\n", status="accepted",
                created=f"2025-0{n}-15", updated=f"2025-0{n}-15"))
        inst.git.commit("corpus", when=1_735_000_000)
        inst.sync()
        yield inst


def served(inst: Instance, query: str, limit: int) -> tuple[list[str], bool]:
    p = inst.engine().search_context(query, limit=limit)
    return [a["artifact_id"] for a in p["artifacts"]], "truncated_artifacts" in p


def test_the_pool_does_not_depend_on_the_limit_and_holds_the_largest_limit() -> None:
    assert POOL >= MAX_LIMIT


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from((*WORDS, "STORY-0021", "DEC-0003", "criterion")),
                      min_size=1, max_size=4),
       k=st.integers(min_value=1, max_value=MAX_LIMIT - 1), data=st.data())
def test_top_k_is_a_prefix_of_top_k_plus_n(
    many: Instance, words: list[str], k: int, data: st.DataObject
) -> None:
    n = data.draw(st.integers(min_value=1, max_value=MAX_LIMIT - k))
    short, short_cut = served(many, " ".join(words), k)
    long, long_cut = served(many, " ".join(words), k + n)
    if not short_cut and not long_cut:
        assert long[:k] == short
    else:  # the read budget cut whole rows from the weakest end: what both hold agrees
        common = min(len(short), len(long))
        assert long[:common] == short[:common]


def test_limit_three_and_ten_agree_on_their_first_three(many: Instance) -> None:
    """Regression: the pool was sized from limit, so limit=3 and limit=10 disagreed."""
    for query in ("invoice export", "ledger reminder token", "refund"):
        three, _ = served(many, query, 3)
        ten, _ = served(many, query, 10)
        assert ten[:3] == three and len(three) == 3
