"""outside_backlog: tracker items no type map covers, read back from the store by
list_backlog, context_health and doctor (a real instance syncing from a fake GitHub)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.answers.backlog import BacklogAnswer, OutsideRow
from revetly_core.answers.health import HealthAnswer
from revetly_core.answers.operate import DoctorAnswer
from revetly_core.model import Artifact
from revetly_core.reads.budget import payload_bytes
from revetly_core.reads.outside import (
    OUTSIDE_FIX,
    fit_outside,
    outside_budget,
    outside_row,
    why_counts,
)
from revetly_core.store.db import Store

from revetly_core import Engine
from tests.core.answers.conforms import assert_conforms
from tests.core.connectors.github_instance import TOKEN, TOKEN_ENV, github_instance
from tests.support.fake_github import FakeGitHub, serving


def _populate(fake: FakeGitHub) -> None:
    """Two mapped issues, two untyped (one with an unmapped label), one unmapped, one mapped
    by its native type."""
    fake.add_issue(1, "Offline sync", labels=("epic",))
    fake.add_issue(2, "Resolve conflicts", labels=("story",), state="closed",
                   state_reason="completed")
    fake.add_issue(3, "Ask the vendor about quotas", labels=("question", "help wanted"))
    fake.add_issue(10, "Tidy the wiki")
    fake.add_issue(4, "Spike: storage engines", issue_type="Spike", labels=("research",))
    fake.add_issue(5, "Crash on empty queue", issue_type="Bug")


@pytest.fixture()
def synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine,
                                                                                FakeGitHub]]:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeGitHub()
    with serving(fake):
        _populate(fake)
        engine = github_instance(tmp_path, fake.url)
        engine.sync()
        yield engine, fake


def _artifact(**over: object) -> Artifact:
    base: dict[str, object] = {"id": "GH-3", "type": "issue", "title": "Ask", "source": "github/app",
                               "project": "inst", "metadata": {"untyped_why": "untyped"}}
    base.update(over)
    return Artifact(**base)  # type: ignore[arg-type]


# -- the rules, one test each ----------------------------------------------------------------


def test_an_outside_row_names_id_title_kind_and_why() -> None:
    assert outside_row(_artifact()) == {"artifact_id": "GH-3", "title": "Ask", "kind": "issue",
                                        "why": "untyped"}


def test_an_unmapped_row_names_its_native_type_and_labels() -> None:
    row = outside_row(_artifact(metadata={"untyped_why": "unmapped", "native_type": "Spike",
                                          "labels": ["research"]}))
    assert row["why"] == "unmapped"
    assert row["native_type"] == "Spike" and row["labels"] == ["research"]


def test_an_untyped_row_carries_no_native_type() -> None:
    row = outside_row(_artifact(metadata={"untyped_why": "untyped", "native_type": None,
                                          "labels": []}))
    assert "native_type" not in row and "labels" not in row


def test_the_rows_get_a_quarter_of_the_read_budget() -> None:
    assert outside_budget(32_768) == 8_192
    assert outside_budget(1_024) == 256


def test_outside_rows_sort_by_family_then_number(tmp_path: Path) -> None:
    store = Store(tmp_path / ".revetly" / "context.db")
    ids = ["GH-10", "GH-2", "ab-7", "GH-2.1", "odd", "GH-9"]
    store.upsert_artifacts([_artifact(id=i) for i in ids], "2024-01-01T00:00:00+00:00")
    assert store.outside_head(("inst",), 10) == (6, ["odd", "ab-7", "GH-2", "GH-2.1", "GH-9",
                                                    "GH-10"])
    assert store.outside_head(("inst",), 2) == (6, ["odd", "ab-7"])
    assert store.outside_head(("other",), 2) == (0, [])
    store.close()


def test_why_counts_sum_untyped_and_unmapped_over_sources() -> None:
    rows = [("github/a", "p", "untyped", 2), ("github/b", "p", "untyped", 1),
            ("github/b", "p", "unmapped", 4)]
    assert why_counts(rows) == {"untyped": 3, "unmapped": 4}
    assert why_counts([]) == {"untyped": 0, "unmapped": 0}


_rows = st.lists(st.builds(
    lambda i, t: OutsideRow(artifact_id=f"GH-{i}", title=t, kind="issue", why="untyped"),
    st.integers(1, 10_000), st.text(max_size=60)), max_size=30)


@given(_rows, st.integers(0, 2_000))
def test_fit_outside_serves_the_longest_head_that_fits(rows: list[OutsideRow], room: int) -> None:
    served = fit_outside(rows, room)
    assert served == len(rows) or payload_bytes(rows[: served + 1]) > room
    assert served == 0 or payload_bytes(rows[:served]) <= room


# -- end to end --------------------------------------------------------------------------------


def test_list_backlog_names_the_items_no_map_covers(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    answer = engine.list_backlog()
    assert sorted(r["artifact_id"] for r in answer["items"]) == ["GH-1", "GH-2", "GH-5"]
    block = answer["outside_backlog"]
    assert block["count"] == 3
    assert block["items"] == [
        {"artifact_id": "GH-3", "title": "Ask the vendor about quotas", "kind": "issue",
         "why": "untyped", "labels": ["question", "help wanted"]},
        {"artifact_id": "GH-4", "title": "Spike: storage engines", "kind": "issue",
         "why": "unmapped", "native_type": "Spike", "labels": ["research"]},
        {"artifact_id": "GH-10", "title": "Tidy the wiki", "kind": "issue", "why": "untyped"},
    ]
    assert "outside_backlog_truncated" not in answer
    assert_conforms(BacklogAnswer, answer)


def test_the_block_is_the_same_whatever_the_filters(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    whole = engine.list_backlog()["outside_backlog"]
    narrowed = engine.list_backlog(status="done", pbi_type="story", limit=1)
    assert [r["artifact_id"] for r in narrowed["items"]] == ["GH-2"]
    assert narrowed["outside_backlog"] == whole


def test_an_item_typed_on_its_source_leaves_the_block_on_the_next_pass(
        synced: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = synced
    fake.touch(3, labels=[{"name": "bug"}])
    engine.sync()
    answer = engine.list_backlog()
    assert [r["artifact_id"] for r in answer["outside_backlog"]["items"]] == ["GH-4", "GH-10"]
    assert "GH-3" in [r["artifact_id"] for r in answer["items"]]


def test_a_tiny_budget_cuts_the_rows_keeps_the_count_and_names_the_cut(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    monkeypatch.setenv("REVETLY_READ_BUDGET", "1024")
    fake = FakeGitHub()
    with serving(fake):
        fake.add_issue(1, "A mapped story", labels=("story",))
        for n in range(2, 32):
            fake.add_issue(n, f"Untyped issue number {n} with a longish title")
        engine = github_instance(tmp_path, fake.url)
        engine.sync()
        answer = engine.list_backlog()
    block = answer["outside_backlog"]
    assert block["count"] == 30
    listed = len(block["items"])
    assert 0 < listed < 30
    assert payload_bytes(block["items"]) <= 256
    assert [r["artifact_id"] for r in block["items"]] == [f"GH-{n}" for n in range(2, 2 + listed)]
    cut = answer["outside_backlog_truncated"]
    assert (cut["reason"], cut["total"], cut["listed"]) == ("read-budget", 30, listed)
    assert payload_bytes(answer) <= 1024
    assert_conforms(BacklogAnswer, answer)


def test_a_store_with_no_type_map_reports_an_empty_block(tmp_path: Path) -> None:
    Engine.init(tmp_path / "plain")
    engine = Engine.open(tmp_path / "plain")
    engine.sync()
    answer = engine.list_backlog()
    assert answer["outside_backlog"] == {"count": 0, "items": []}
    assert engine.context_health()["outside_backlog"] == {"count": 0, "untyped": 0,
                                                          "unmapped": 0}


def test_context_health_carries_the_same_count_with_the_fix(
        synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    health = engine.context_health()["outside_backlog"]
    assert health == {"count": 3, "untyped": 2, "unmapped": 1, "fix": OUTSIDE_FIX}
    assert_conforms(HealthAnswer, engine.context_health())
    assert health["count"] == engine.list_backlog()["outside_backlog"]["count"]


def test_doctor_counts_untyped_and_unmapped_items_per_source(
        synced: tuple[Engine, FakeGitHub]) -> None:
    engine, _ = synced
    report = engine.doctor()
    assert_conforms(DoctorAnswer, report)
    sources = {s["source"]: s for s in report["sources"]}
    assert (sources["github/app"]["untyped"], sources["github/app"]["unmapped"]) == (2, 1)
    assert "untyped" not in sources["repository"]


def test_a_deleted_item_is_not_counted(synced: tuple[Engine, FakeGitHub]) -> None:
    engine, fake = synced
    del fake.items[10]
    engine.sync(full=True)
    block = engine.list_backlog()["outside_backlog"]
    assert block["count"] == 2 and "GH-10" not in json.dumps(block)
