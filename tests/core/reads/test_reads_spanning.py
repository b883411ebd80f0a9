"""Spanning reads (M20): project="a,b" answers over the union of the projects named, names
them under `projects`, and keys freshness, history and context_health by project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.config import parse_config
from revetly_core.model import Artifact
from revetly_core.reads.backlog import outside_backlog_block
from revetly_core.reads.envelope import envelope, resolve_project, spanned_names
from revetly_core.store.db import Store

from revetly_core import Refusal
from tests.core.gitrepo import Instance, md

CONFIG = """\
[instance]
name = "multi"
default_project = "app"

[projects.app]
imports = ["shared"]
paths = ["backlog/app"]

[projects.shared]
paths = ["backlog/shared"]

[projects.other]
paths = ["backlog/other"]
"""

THREE = {"instance": {"name": "multi", "default_project": "app"},
         "projects": {"app": {"imports": ["shared"]}, "shared": {}, "other": {}}}


@pytest.fixture()
def multi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Instance:
    """Three projects, one story each; app imports shared."""
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    inst = Instance(tmp_path / "multi", config_text=CONFIG)
    inst.git.write_and_commit({
        f"backlog/{p}/STORY-{n}.md": md(f"STORY-{n}", f"Export invoices for {p}", "story",
                                        f"The {p} invoices as CSV.\n", status="ready")
        for p, n in (("app", 1), ("shared", 2), ("other", 3))
    }, "three projects")
    inst.sync()
    return inst


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(r["artifact_id"] for r in rows)


@given(st.lists(st.sampled_from(["a", "b", "c", " a", "b ", "", " "]), max_size=6))
def test_spanned_names_are_the_named_projects_stripped_in_order_each_once(
        parts: list[str]) -> None:
    names = spanned_names(",".join(parts)) if parts else spanned_names(None)
    expected: list[str] = []
    for part in parts:
        if part.strip() and part.strip() not in expected:
            expected.append(part.strip())
    assert names == expected


def test_a_spanning_scope_reaches_the_union_of_the_projects_and_their_imports() -> None:
    config = parse_config(THREE)
    scope = resolve_project(config, "other,app", with_imports=True)
    assert scope.answering == ("other", "app") and scope.spanning
    assert scope.reach == ("other", "app", "shared")
    listing = resolve_project(config, "other,app", with_imports=False)
    assert listing.reach == ("other", "app")
    assert not resolve_project(config, "app", with_imports=True).spanning


def test_a_spanning_read_naming_an_undeclared_project_is_refused_by_name() -> None:
    with pytest.raises(Refusal) as refused:
        resolve_project(parse_config(THREE), "app,ghost", with_imports=True)
    assert refused.value.code == "unknown-project" and "'ghost'" in refused.value.detail


def test_list_backlog_over_two_projects_lists_both_projects_own_items(multi: Instance) -> None:
    out = multi.engine().list_backlog(project="app,other")
    assert ids(out["items"]) == ["STORY-1", "STORY-3"]
    assert out["projects"] == ["app", "other"] and "project" not in out
    assert {r["artifact_id"]: r["project"] for r in out["items"]} == {
        "STORY-1": "app", "STORY-3": "other"}
    assert out["outside_backlog"] == {"app": {"count": 0, "items": []},
                                      "other": {"count": 0, "items": []}}


def test_a_spanning_backlog_cursor_resumes_the_same_spanning_read(multi: Instance) -> None:
    engine = multi.engine()
    first = engine.list_backlog(project="app,other", limit=1)
    rest = engine.list_backlog(project="app,other", limit=1, cursor=first["next_cursor"])
    assert ids(first["items"] + rest["items"]) == ["STORY-1", "STORY-3"]
    with pytest.raises(Refusal):
        engine.list_backlog(project="app", limit=1, cursor=first["next_cursor"])


def test_search_over_two_projects_reaches_both_and_their_imports(multi: Instance) -> None:
    engine = multi.engine()
    alone = engine.search_context("invoices", project="other")
    assert ids(alone["artifacts"]) == ["STORY-3"]
    both = engine.search_context("invoices", project="app,other")
    assert ids(both["artifacts"]) == ["STORY-1", "STORY-2", "STORY-3"]
    assert both["projects"] == ["app", "other"]
    assert set(both["freshness"]) == {"app", "other"}


def test_get_artifact_over_two_projects_reads_an_artifact_either_reaches(
        multi: Instance) -> None:
    engine = multi.engine()
    with pytest.raises(Refusal):
        engine.get_artifact("STORY-3", project="app")
    out = engine.get_artifact("STORY-3", project="app,other")
    assert out["artifact_id"] == "STORY-3" and out["projects"] == ["app", "other"]
    assert "from_project" not in out


def test_drift_over_two_projects_reads_both_projects_own_items(multi: Instance) -> None:
    out = multi.engine().get_scope("drift", project="shared,other")
    assert out["projects"] == ["shared", "other"]
    single = multi.engine().get_scope("drift", project="shared")
    assert single["project"] == "shared" and "projects" not in single


def _source(store: Store, source: str, project: str, floor: str | None) -> None:
    store.record_source(source, project, cursor={}, at="2026-01-02T00:00:00Z",
                        outcome="succeeded", floor=floor, gaps=[], partial=False)


def test_history_and_freshness_of_a_spanning_read_are_keyed_by_project(tmp_path: Path) -> None:
    config = parse_config(THREE)
    store = Store(tmp_path / "context.db")
    try:
        _source(store, "commits/app", "app", "2025-03-01")
        _source(store, "commits/other", "other", None)
        _source(store, "commits/shared", "shared", "2024-01-01")
        out = envelope(config, store, resolve_project(config, "app,other", with_imports=True))
    finally:
        store.close()
    assert out["projects"] == ["app", "other"] and "project" not in out
    assert out["history"] == {"app": {"floors": {"commits/app": "2025-03-01"}}}
    fresh = out["freshness"]
    assert isinstance(fresh, dict) and set(fresh) == {"app", "other"}
    assert "context_health" not in out


def test_a_failed_pass_is_named_under_each_project_of_a_spanning_read(tmp_path: Path) -> None:
    config = parse_config(THREE)
    store = Store(tmp_path / "context.db")
    try:
        pass_id = store.start_pass("2026-01-01T00:00:00Z", True)
        store.end_pass(pass_id, "2026-01-01T00:01:00Z", "failed", 1, {}, "boom")
        out = envelope(config, store, resolve_project(config, "shared,other",
                                                       with_imports=False))
    finally:
        store.close()
    health = out["context_health"]
    assert set(health) == {"shared", "other"}
    assert all(block["error"] == "boom" for block in health.values())  # type: ignore[union-attr]


def test_a_read_naming_one_project_carries_only_that_projects_floors(tmp_path: Path) -> None:
    config = parse_config(THREE)
    store = Store(tmp_path / "context.db")
    try:
        _source(store, "commits/app", "app", "2025-03-01")
        _source(store, "commits/other", "other", "2024-01-01")
        out = envelope(config, store, resolve_project(config, "other", with_imports=True))
    finally:
        store.close()
    assert out["project"] == "other" and "projects" not in out
    assert out["history"] == {"floors": {"commits/other": "2024-01-01"}}


def test_authoring_context_over_two_projects_names_both(multi: Instance) -> None:
    out = multi.engine().get_authoring_context("invoices", project="app,other")
    assert out["projects"] == ["app", "other"] and "project" not in out
    assert set(out["freshness"]) == {"app", "other"}


def test_a_binding_over_two_projects_is_rooted_at_an_artifact_either_reaches(
        multi: Instance) -> None:
    engine = multi.engine()
    with pytest.raises(Refusal):
        engine.get_scope("binding", artifact_id="STORY-3", project="app")
    out = engine.get_scope("binding", artifact_id="STORY-3", project="app,other")
    assert out["projects"] == ["app", "other"]


def _outside(aid: str, project: str) -> Artifact:
    return Artifact(id=aid, type="issue", title=f"Untyped {aid}", source="github/app",
                    project=project, metadata={"untyped_why": "untyped"})


def test_outside_backlog_of_a_spanning_read_is_keyed_by_project(tmp_path: Path) -> None:
    config = parse_config(THREE)
    store = Store(tmp_path / "context.db")
    try:
        store.upsert_artifacts([_outside("GH-1", "app"), _outside("GH-2", "app"),
                                _outside("GH-3", "other"), _outside("GH-4", "shared")],
                               "2026-01-02T00:00:00Z")
        scope = resolve_project(config, "app,other", with_imports=False)
        blocks, cuts = outside_backlog_block(store, scope, 64 * 1024)
        one, _ = outside_backlog_block(store, resolve_project(config, "app", with_imports=False),
                                       64 * 1024)
    finally:
        store.close()
    assert isinstance(blocks, dict) and set(blocks) == {"app", "other"}
    assert blocks["app"]["count"] == 2 and blocks["other"]["count"] == 1
    assert [r["artifact_id"] for r in blocks["other"]["items"]] == ["GH-3"]
    assert cuts is None
    assert one["count"] == 2 and "app" not in one


def test_a_spanning_outside_block_shares_the_quarter_and_keys_its_cuts(tmp_path: Path) -> None:
    config = parse_config(THREE)
    store = Store(tmp_path / "context.db")
    try:
        store.upsert_artifacts([_outside(f"GH-{n}", "app") for n in range(1, 40)]
                               + [_outside("GH-99", "other")], "2026-01-02T00:00:00Z")
        scope = resolve_project(config, "app,other", with_imports=False)
        blocks, cuts = outside_backlog_block(store, scope, 2048)
    finally:
        store.close()
    assert isinstance(blocks, dict) and isinstance(cuts, dict)
    assert blocks["app"]["count"] == 39 and len(blocks["app"]["items"]) < 39
    assert set(cuts) == {"app"}
