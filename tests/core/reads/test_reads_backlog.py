"""list_backlog: compact rows of the project's own work items, filtered, ordered and paged."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from revetly_core.config import Config, load_config
from revetly_core.engine import Engine
from revetly_core.instance.layout import InstancePaths
from revetly_core.markdown.criteria import criteria_fingerprint
from revetly_core.reads.backlog import list_backlog
from revetly_core.reads.budget import ENV_READ_BUDGET, payload_bytes
from revetly_core.refusal import Refusal
from revetly_core.store.db import Store

from tests.core.gitrepo import GitRepo, md

STATUSES = ("draft", "ready", "in-progress", "done", "parked")


@dataclass
class Backlog:
    root: Path
    git: GitRepo
    config: Config

    def read(self, **kw: Any) -> dict[str, Any]:
        store = Store(InstancePaths(self.root).db, readonly=True)
        try:
            return list_backlog(self.config, store, **kw)
        finally:
            store.close()

    def refusal(self, **kw: Any) -> Refusal:
        with pytest.raises(Refusal) as caught:
            self.read(**kw)
        return caught.value

    def every_page(self, **kw: Any) -> list[dict[str, Any]]:
        pages = [self.read(**kw)]
        while "next_cursor" in pages[-1]:
            pages.append(self.read(cursor=pages[-1]["next_cursor"], **kw))
            assert len(pages) < 500
        return pages


def build(root: Path, stories: int = 40) -> Backlog:
    """Epics, features, stories (unpadded ids, so 9 sorts before 10), tasks and bugs; one
    story deleted, one discarded with its reason, one revised by a decision; notes besides."""
    Engine.init(root)
    git = GitRepo(root, create=False)
    files: dict[str, str | bytes] = {
        "backlog/EPIC-2.md": md("EPIC-2", "Reporting", "epic", "E2\n", status="ready"),
        "backlog/EPIC-1.md": md("EPIC-1", "Billing", "epic", "E1\n", status="in-progress"),
        "backlog/FEAT-1.md": md("FEAT-1", "Invoices", "feature", "F1\n", status="ready",
                                parent="EPIC-1"),
        "backlog/BUG-1.md": md("BUG-1", "Rounding is off", "bug", "B\n", status="ready",
                               parent="STORY-1"),
        "backlog/TASK-1.md": md("TASK-1", "Writer", "task", "T\n", status="done",
                                parent="STORY-1"),
        "notes/DEC-1.md": md("DEC-1", "Exports use CSV", "decision", "We chose CSV.\n",
                             status="accepted",
                             revises=[{"id": "STORY-1", "criteria": [1],
                                       "criteria_fp": [criteria_fingerprint("Exports work")]}]),
    }
    for n in range(1, stories + 1):
        extra: dict[str, Any] = {}
        body = f"Story {n}.\n"
        status = STATUSES[n % len(STATUSES)]
        if n == 1:
            body += "\n## Acceptance criteria\n\n- Exports work\n"
        if n == 3:
            status, extra = "discarded", {"discard_reason": "replaced by the ledger feed"}
        title = f"Story number {n} " + "with a rather long descriptive title " * (n % 3)
        files[f"backlog/STORY-{n}.md"] = md(f"STORY-{n}", title.strip(), "story", body,
                                            status=status, parent="FEAT-1", **extra)
    git.write_and_commit(files, "seed")
    git.remove_and_commit([f"backlog/STORY-{stories}.md"], "drop the last story")
    Engine.open(root).sync()
    return Backlog(root, git, load_config(root))


@pytest.fixture(scope="module")
def backlog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backlog]:
    yield build(tmp_path_factory.mktemp("backlog") / "acme")


def ids(page: dict[str, Any]) -> list[str]:
    return [r["artifact_id"] for r in page["items"]]


def test_rows_are_compact_and_carry_the_parent_the_source_records(backlog: Backlog) -> None:
    page = backlog.read(limit=500)
    row = next(r for r in page["items"] if r["artifact_id"] == "STORY-2")
    assert row == {
        "artifact_id": "STORY-2", "title": row["title"], "status": "in-progress",
        "artifact_type": "story", "source_updated_at": row["source_updated_at"],
        "parent": "FEAT-1",
    }
    assert row["source_updated_at"]
    assert page["outside_backlog"] == {"count": 0, "items": []}
    assert "freshness" in page and "project" not in page


def test_only_work_items_are_listed_and_deleted_ones_are_out_by_default(backlog: Backlog) -> None:
    page = backlog.read(limit=500)
    assert "DEC-1" not in ids(page)
    assert "STORY-40" not in ids(page)
    assert page["total"] == len(page["items"]) == 2 + 1 + 39 + 1 + 1
    assert "next_cursor" not in page


def test_the_serve_order_is_type_rank_then_id_number(backlog: Backlog) -> None:
    order = ids(backlog.read(limit=500))
    assert order[:3] == ["EPIC-1", "EPIC-2", "FEAT-1"]
    assert order[3:6] == ["STORY-1", "STORY-2", "STORY-3"]
    assert order.index("STORY-9") < order.index("STORY-10")
    assert order[-2:] == ["TASK-1", "BUG-1"]


def test_status_filters_one_status_or_a_comma_list(backlog: Backlog) -> None:
    done = backlog.read(status="done", limit=500)
    assert done["items"] and all(r["status"] == "done" for r in done["items"])
    both = backlog.read(status="done, parked", limit=500)
    assert {r["status"] for r in both["items"]} == {"done", "parked"}
    assert both["total"] > done["total"]


def test_an_unknown_status_is_refused_naming_the_allowed_ones(backlog: Backlog) -> None:
    refusal = backlog.refusal(status="finished")
    assert refusal.code == "invalid-argument"
    assert "'finished'" in refusal.detail
    for allowed in ("draft", "ready", "in-progress", "done", "parked", "discarded"):
        assert allowed in refusal.fix


def test_pbi_type_filters_by_work_item_type_and_refuses_others(backlog: Backlog) -> None:
    assert ids(backlog.read(pbi_type="epic")) == ["EPIC-1", "EPIC-2"]
    assert ids(backlog.read(pbi_type="bug,task")) == ["TASK-1", "BUG-1"]
    assert backlog.refusal(pbi_type="decision").code == "invalid-argument"


def test_provenance_filters_rows(backlog: Backlog) -> None:
    assert backlog.read(provenance="source-of-record", limit=500)["total"] == 44
    assert backlog.read(provenance="mirror")["items"] == []


@pytest.mark.parametrize("limit", [0, 501, -3, True, "5", 2.5])
def test_a_limit_outside_one_to_five_hundred_is_refused(backlog: Backlog, limit: object) -> None:
    assert backlog.refusal(limit=limit).code == "invalid-argument"


def test_an_unknown_project_is_refused(backlog: Backlog) -> None:
    assert backlog.refusal(project="nope").code == "unknown-project"


def test_deleted_include_and_only_read_the_deleted_item_marked(backlog: Backlog) -> None:
    only = backlog.read(deleted="only")
    assert ids(only) == ["STORY-40"]
    row = only["items"][0]
    assert row["deleted"] is True and row["deleted_clock"] == "source-declared" and row["deleted_at"]
    assert "STORY-40" in ids(backlog.read(deleted="include", limit=500))


def test_rows_carry_their_marks(backlog: Backlog) -> None:
    rows = {r["artifact_id"]: r for r in backlog.read(limit=500)["items"]}
    assert rows["STORY-3"]["discard_reason"] == "replaced by the ledger feed"
    assert rows["STORY-1"]["revised_by"] == [
        {"id": "DEC-1", "criteria": [1], "criterion_changed": False}
    ]


def test_paging_by_cursor_serves_every_row_exactly_once(backlog: Backlog) -> None:
    whole = ids(backlog.read(limit=500))
    pages = backlog.every_page(limit=7)
    paged = [i for p in pages for i in ids(p)]
    assert paged == whole
    assert len(pages) == -(-len(whole) // 7)
    assert all(p["total"] == len(whole) for p in pages)


def test_a_cursor_for_other_filters_is_refused_as_stale(backlog: Backlog) -> None:
    cursor = backlog.read(limit=5)["next_cursor"]
    refusal = backlog.refusal(limit=5, status="done", cursor=cursor)
    assert refusal.code == "stale-cursor"
    assert refusal.fix == "call list_backlog again without cursor"


def test_a_tampered_cursor_is_refused_as_invalid(backlog: Backlog) -> None:
    cursor = backlog.read(limit=5)["next_cursor"]
    flipped = cursor[:10] + ("A" if cursor[10] != "A" else "B") + cursor[11:]
    assert backlog.refusal(limit=5, cursor=flipped).code == "invalid-cursor"
    assert backlog.refusal(limit=5, cursor="not a cursor at all").code == "invalid-cursor"


def test_a_cursor_made_before_a_sync_changed_the_corpus_is_stale(tmp_path: Path) -> None:
    b = build(tmp_path / "acme", stories=6)
    cursor = b.read(limit=2)["next_cursor"]
    b.git.write_and_commit({"backlog/STORY-99.md": md("STORY-99", "Late story", "story", "x\n",
                                                      status="draft")}, "one more")
    Engine.open(b.root).sync()
    refusal = b.refusal(limit=2, cursor=cursor)
    assert refusal.code == "stale-cursor"
    assert "call list_backlog again without cursor" in refusal.fix


def test_under_a_small_budget_rows_are_cut_reported_and_resumed(
    backlog: Backlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = ids(backlog.read(limit=500))
    monkeypatch.setenv(ENV_READ_BUDGET, "2048")
    first = backlog.read(limit=50)
    assert payload_bytes(first) <= 2048
    assert first["truncated"]["reason"] == "read-budget"
    assert first["truncated"]["total"] == 44 and first["truncated"]["listed"] == len(first["items"])
    assert first["outside_backlog"] == {"count": 0, "items": []}
    pages = backlog.every_page(limit=50)
    assert all(payload_bytes(p) <= 2048 for p in pages)
    assert [i for p in pages for i in ids(p)] == whole


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(budget=st.integers(min_value=2048, max_value=40_000), limit=st.integers(1, 500),
       deleted=st.sampled_from([None, "include", "only"]))
def test_no_budget_from_2048_up_is_ever_exceeded(
    backlog: Backlog, budget: int, limit: int, deleted: str | None
) -> None:
    with mock.patch.dict(os.environ, {ENV_READ_BUDGET: str(budget)}):
        page = backlog.read(limit=limit, deleted=deleted)
        assert payload_bytes(page) <= budget
        if "next_cursor" in page:
            assert payload_bytes(backlog.read(limit=limit, deleted=deleted,
                                              cursor=page["next_cursor"])) <= budget


def test_the_same_call_twice_answers_byte_for_byte_the_same(backlog: Backlog) -> None:
    for kw in ({}, {"limit": 5}, {"status": "done,draft", "deleted": "include"}):
        assert json.dumps(backlog.read(**kw)) == json.dumps(backlog.read(**kw))


MULTI_TOML = """
[instance]
name = "acme"
default_project = "app"

[projects.app]
imports = ["platform"]
paths = ["backlog/app"]

[projects.platform]
imports = []
paths = ["backlog/platform"]
"""


def test_a_listing_reads_the_named_projects_own_items_not_its_imports(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    Engine.init(root)
    git = GitRepo(root, create=False)
    (root / "revetly.toml").write_text(MULTI_TOML, encoding="utf-8")
    git.write_and_commit({
        "backlog/app/STORY-1.md": md("STORY-1", "App story", "story", "a\n", status="draft"),
        "backlog/platform/STORY-2.md": md("STORY-2", "Platform story", "story", "p\n",
                                          status="draft"),
    }, "two projects")
    Engine.open(root).sync()
    b = Backlog(root, git, load_config(root))
    app = b.read()
    assert ids(app) == ["STORY-1"] and app["project"] == "app"
    assert app["items"][0]["project"] == "app"
    platform = b.read(project="platform")
    assert ids(platform) == ["STORY-2"] and platform["project"] == "platform"
