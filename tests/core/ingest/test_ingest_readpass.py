"""The read pass on real git repositories: what lands, what is named, what survives a failure.

The central property: an incremental pass after any sequence of commits leaves CONTEXT exactly
as a full pass over a fresh copy of the same repository would (Store.snapshot() equal).
"""

from __future__ import annotations

import gc
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from revetly_core.config import load_config
from revetly_core.connectors.base import SourceBatch
from revetly_core.connectors.repository import RepositoryConnector
from revetly_core.ingest import linker as linker_module
from revetly_core.ingest.collector import paced_threshold
from revetly_core.ingest.readpass import config_fingerprint, connectors_for, run_pass, utc_now
from revetly_core.model import Artifact
from revetly_core.store.db import Store

from revetly_core import Engine, Refusal
from tests.core.gitrepo import Instance, iso, md


def clock_at(when: str) -> Callable[[], str]:
    return lambda: when


def source_row(payload: dict[str, Any], source: str) -> dict[str, Any]:
    (row,) = [s for s in payload["sources"] if s["source"] == source]
    return row


def story(n: int, title: str | None = None, body: str = "", **fields: Any) -> tuple[str, str]:
    aid = f"STORY-{n:04d}"
    return f"backlog/{aid}.md", md(aid, title or f"Story number {n}", "story", body, **fields)


def test_utc_now_is_iso_to_the_second() -> None:
    now = utc_now()
    assert now.endswith("+00:00") and "." not in now


def test_connectors_for_lists_repository_then_commits(tmp_path: Path) -> None:
    inst = Instance(tmp_path / "i", commits=[("api", "../api"), ("web", "../web")])
    config = load_config(inst.root)
    assert [c.source_id for c in connectors_for(inst.root, config)] == [
        "repository", "commits/api", "commits/web"]


# -- a first pass, health and an idle pass ------------------------------------------------------


def test_a_first_pass_lands_every_file_and_health_counts_them(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit(dict([
        story(1, status="ready"), story(2, status="ready"), story(3, status="done"),
        ("backlog/EPIC-0001.md", md("EPIC-0001", "Billing platform", "epic", status="draft")),
        ("notes/DEC-0001.md", md("DEC-0001", "Use Postgres", "decision", "We use it.\n",
                                 status="accepted")),
        ("notes/CONV-0001.md", md("CONV-0001", "Sync on billing", "conversation")),
        ("records/DEL-0001.md", md("DEL-0001", "Delivered story 3", "delivery",
                                   delivers="STORY-0003")),
    ]))
    result = instance.sync()
    assert result["outcome"] == "succeeded"
    assert result["full"] is True
    assert result["corpus_revision"] == 1
    assert result["changed"] == {"added": 7, "updated": 0, "deleted": 0}
    assert result["problems"] == 0
    assert source_row(result, "repository")["counts"]["read"] == 7
    health = instance.health()
    assert health["instance"] == "acme" and health["project"] == "acme"
    assert health["corpus_revision"] == 1
    assert health["last_pass"]["outcome"] == "succeeded"
    assert "context_health" not in health
    counts = health["counts"]
    assert counts["artifacts"] == 7
    assert counts["by_kind"] == {"work-item": 4, "doc": 2, "delivery-record": 1}
    assert counts["by_type"] == {"story": 3, "epic": 1, "decision": 1, "conversation": 1,
                                 "delivery": 1}
    assert counts["by_status"] == {"story": {"ready": 2, "done": 1}, "epic": {"draft": 1},
                                   "decision": {"accepted": 1}}
    assert counts["deleted"] == 0
    assert counts["links"] == 1  # DEL-0001 delivers STORY-0003
    assert health["index"] == {"backend": "fts5", "revision": 1, "current": True}
    assert health["problems"] == 0


def test_an_idle_pass_changes_nothing(instance: Instance) -> None:
    instance.git.write_and_commit(dict([story(1), story(2)]))
    first = instance.sync()
    snap = instance.snapshot()
    second = instance.sync()
    assert second["full"] is False
    assert second["corpus_revision"] == first["corpus_revision"]
    assert second["changed"] == {"added": 0, "updated": 0, "deleted": 0}
    assert source_row(second, "repository")["counts"]["read"] == 0
    assert instance.snapshot() == snap


def test_sync_full_re_reads_everything(instance: Instance) -> None:
    instance.git.write_and_commit(dict([story(1), story(2)]))
    instance.sync()
    snap = instance.snapshot()
    again = instance.sync(full=True)
    assert again["full"] is True
    assert again["corpus_revision"] == 2
    assert source_row(again, "repository")["counts"]["read"] == 2
    # it re-reads every row, and reports what changed: nothing did
    assert again["changed"] == {"added": 0, "updated": 0, "deleted": 0}
    assert source_row(again, "repository")["counts"]["unchanged"] == 2
    assert instance.snapshot() == snap


def test_sync_full_counts_as_updated_only_the_rows_that_changed(instance: Instance) -> None:
    instance.git.write_and_commit(dict([story(1), story(2)]))
    instance.sync()
    instance.git.write_and_commit(dict([story(2, title="Renamed")]))
    again = instance.sync(full=True)
    assert again["changed"] == {"added": 0, "updated": 1, "deleted": 0}


def test_a_config_change_counts_rows_whose_record_changed() -> None:
    from revetly_core.ingest.readpass import record_changed
    from revetly_core.model import Artifact
    from revetly_core.store.db import artifact_row

    a = Artifact(id="STORY-0001", type="story", title="T", source="repository", project="acme")
    stored = tuple(v for c, v in zip(_cols(), artifact_row(a, "now"), strict=True)
                   if c != "ingested_at")
    assert record_changed(stored, a) is False
    b = Artifact(id="STORY-0001", type="story", title="T", source="repository", project="acme",
                 status="done")
    assert record_changed(stored, b) is True
    assert record_changed(None, a) is True


def _cols() -> tuple[str, ...]:
    from revetly_core.store.db import ARTIFACT_COLUMNS

    return ARTIFACT_COLUMNS


def test_a_config_change_forces_a_full_pass(instance: Instance) -> None:
    instance.git.write_and_commit(dict([story(1)]))
    instance.sync()
    text = (instance.root / "revetly.toml").read_text() + "\n[read]\nbudget = 4096\n"
    instance.git.write_and_commit({"revetly.toml": text})
    result = instance.sync()
    assert result["full"] is True
    store = instance.store()
    try:
        assert store.get_meta("config_fingerprint") == config_fingerprint(
            load_config(instance.root))
    finally:
        store.close()


def test_switching_the_index_backend_rebuilds_it_with_a_full_pass(instance: Instance) -> None:
    instance.git.write_and_commit(dict([story(1)]))
    instance.sync()
    text = (instance.root / "revetly.toml").read_text() + '\n[index]\nbackend = "whoosh"\n'
    instance.git.write_and_commit({"revetly.toml": text})
    result = instance.sync()
    assert result["full"] is True
    assert instance.health()["index"] == {"backend": "whoosh", "revision": 2, "current": True}
    assert not (instance.root / ".revetly" / "index" / "keyword.sqlite").exists()
    hits = instance.engine().search_context("STORY-0001")["artifacts"]
    assert hits[0]["artifact_id"] == "STORY-0001"


# -- incremental changes -------------------------------------------------------------------------


def test_an_edit_updates_only_that_artifact(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit(dict([story(1), story(2), story(3)]))
    config = load_config(instance.root)
    run_pass(instance.root, config, clock=clock_at("2030-01-01T00:00:00+00:00"))
    path, text = story(2, "Story two, renamed", "New body.\n")
    sha = g.write_and_commit({path: text})
    result = run_pass(instance.root, config, clock=clock_at("2030-02-02T00:00:00+00:00"))
    assert result.full is False
    assert result.changed == {"added": 0, "updated": 1, "deleted": 0}
    assert result.revision == 2
    assert result.sources[0]["counts"]["read"] == 1
    store = instance.store()
    try:
        ingested = dict(store.conn.execute("SELECT id, ingested_at FROM artifacts"))
        assert ingested == {"STORY-0001": "2030-01-01T00:00:00+00:00",
                            "STORY-0002": "2030-02-02T00:00:00+00:00",
                            "STORY-0003": "2030-01-01T00:00:00+00:00"}
        two = store.get("STORY-0002")
        assert two is not None
        assert (two.title, two.body) == ("Story two, renamed", "\nNew body.\n")
        assert two.source_updated_at == iso(g.commit_time(sha))
        assert two.created_at != two.source_updated_at
    finally:
        store.close()


def test_times_come_from_git_unless_the_frontmatter_declares_them(instance: Instance) -> None:
    g = instance.git
    c1 = g.write_and_commit(dict([story(1), story(2, created="2020-01-01", updated="2020-06-01")]))
    c2 = g.write_and_commit(dict([story(1, body="edited\n")]))
    instance.sync()
    one, two = instance.get("STORY-0001"), instance.get("STORY-0002")
    assert (one.created_at, one.source_updated_at) == (iso(g.commit_time(c1)),
                                                       iso(g.commit_time(c2)))
    assert (two.created_at, two.source_updated_at) == ("2020-01-01", "2020-06-01")


def test_an_uncommitted_new_file_lands_without_git_dates(instance: Instance) -> None:
    path, text = story(1)
    instance.git.write(path, text)
    instance.sync()
    a = instance.get("STORY-0001")
    assert a is not None and a.created_at is None and a.source_updated_at is None


def test_a_committed_removal_deletes_with_the_commit_time(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit(dict([story(1), story(2)]))
    instance.sync()
    sha = g.remove_and_commit(["backlog/STORY-0002.md"], "Drop STORY-0002")
    result = instance.sync()
    assert result["changed"] == {"added": 0, "updated": 0, "deleted": 1}
    gone = instance.get("STORY-0002")
    assert gone is not None and gone.deleted
    assert gone.deleted_clock == "source-declared"
    assert gone.deleted_at == iso(g.commit_time(sha))
    assert gone.deleted_note == f"removed by commit {sha[:12]}"
    counts = instance.health()["counts"]
    assert (counts["artifacts"], counts["deleted"]) == (1, 1)


def test_a_work_tree_removal_is_found_then_dated_when_committed(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit(dict([story(1), story(2)]))
    instance.sync()
    g.unlink("backlog/STORY-0002.md")
    result = instance.sync()
    assert result["changed"]["deleted"] == 1
    found = instance.get("STORY-0002")
    assert found is not None and found.deleted
    assert found.deleted_clock == "found"
    assert found.deleted_at == result["started_at"]
    sha = g.commit("Commit the removal")
    instance.sync()
    dated = instance.get("STORY-0002")
    assert dated is not None and dated.deleted
    assert dated.deleted_clock == "source-declared"
    assert dated.deleted_at == iso(g.commit_time(sha))


def test_a_restored_file_comes_back_to_life(instance: Instance) -> None:
    g = instance.git
    path, text = story(1)
    g.write_and_commit({path: text})
    instance.sync()
    g.remove_and_commit([path])
    instance.sync()
    assert instance.get("STORY-0001").deleted
    g.write_and_commit({path: text}, "Restore")
    result = instance.sync()
    assert result["changed"]["updated"] == 1
    back = instance.get("STORY-0001")
    assert not back.deleted and back.deleted_at is None and back.deleted_clock is None


# -- problems never abort a pass ------------------------------------------------------------------


def test_malformed_files_are_named_and_the_others_land(tmp_path: Path) -> None:
    text = ('[instance]\nname = "acme"\n[connectors.repository]\n'
            'paths = ["backlog", "notes", "records"]\nmax_file_bytes = 2000\n')
    inst = Instance(tmp_path / "acme", config_text=text)
    g = inst.git
    g.write_and_commit({
        **dict([story(1), story(2)]),
        "backlog/bad-yaml.md": "---\nid: STORY-0010\ntitle: a: b\ntype: story\n---\n",
        "backlog/no-id.md": "---\ntitle: Missing id\ntype: story\n---\n",
        "backlog/latin1.md": b"---\nid: STORY-0011\ntitle: Caf\xe9\ntype: story\n---\n",
        "backlog/binary.md": b"\x89PNG\r\n\x1a\n\x00\x00",
        "backlog/huge.md": md("STORY-0012", "Huge", body="x" * 5000),
        "notes/plain.md": "just prose, no frontmatter\n",
    })
    result = inst.sync()
    assert result["outcome"] == "succeeded"
    assert result["problems"] == 6
    assert result["changed"]["added"] == 2
    problems = {p["path"]: p["code"] for p in inst.problems()}
    assert problems == {
        "backlog/bad-yaml.md": "bad-yaml", "backlog/no-id.md": "schema",
        "backlog/latin1.md": "not-utf8", "backlog/binary.md": "binary",
        "backlog/huge.md": "too-large", "notes/plain.md": "no-frontmatter",
    }
    detail = {p["path"]: p["detail"] for p in inst.problems()}
    assert detail["backlog/no-id.md"] == "id is required"
    assert "line 3" in detail["backlog/bad-yaml.md"]
    assert inst.health()["problems"] == 6
    assert {a for a in ("STORY-0001", "STORY-0002") if inst.get(a) is not None} == {
        "STORY-0001", "STORY-0002"}

    # fixing one file clears its problem on the next (incremental) pass
    g.write_and_commit({"backlog/bad-yaml.md": md("STORY-0010", "Fixed")})
    again = inst.sync()
    assert again["full"] is False
    assert again["problems"] == 5
    assert "backlog/bad-yaml.md" not in {p["path"] for p in inst.problems()}
    assert inst.get("STORY-0010") is not None


def test_a_file_that_breaks_keeps_its_last_good_artifact_serving(instance: Instance) -> None:
    g = instance.git
    path, text = story(1, "Good title")
    g.write_and_commit({path: text})
    instance.sync()
    g.write_and_commit({path: "---\nid: STORY-0001\ntitle: [broken\n---\n"})
    result = instance.sync()
    assert result["problems"] == 1
    kept = instance.get("STORY-0001")
    assert kept is not None and not kept.deleted and kept.title == "Good title"
    assert [p["code"] for p in instance.problems()] == ["bad-yaml"]
    # an unchanged broken file stays named without being re-read
    assert instance.sync()["problems"] == 1


def test_a_duplicate_id_is_named_by_the_pass(instance: Instance) -> None:
    instance.git.write_and_commit({"backlog/a.md": md("STORY-0001", "First"),
                                   "backlog/b.md": md("STORY-0001", "Second")})
    result = instance.sync()
    assert result["problems"] == 1
    assert [(p["path"], p["code"]) for p in instance.problems()] == [("backlog/b.md",
                                                                      "duplicate-id")]
    assert instance.get("STORY-0001").title == "First"


def test_unparsed_criteria_are_counted_in_health(instance: Instance) -> None:
    instance.git.write_and_commit(dict([
        story(1, body="## Acceptance criteria\n\nTBD\n"),
        story(2, body="## Acceptance criteria\n\n- works\n"),
    ]))
    instance.sync()
    assert instance.health()["criteria_unparsed"] == {"repository": 1}
    assert instance.get("STORY-0002").criteria == ["works"]


# -- failed sources, failed passes, concurrent passes -------------------------------------------


def test_a_missing_commits_folder_fails_that_source_only(tmp_path: Path) -> None:
    inst = Instance(tmp_path / "acme", commits=[("gone", "../no-such-repo")])
    inst.git.write_and_commit(dict([story(1)]))
    result = inst.sync()
    assert result["outcome"] == "degraded"
    assert source_row(result, "commits/gone")["outcome"] == "failed"
    assert "not a readable git repository" in source_row(result, "commits/gone")["error"]
    assert source_row(result, "repository")["outcome"] == "succeeded"
    assert inst.get("STORY-0001") is not None
    health = inst.health()
    assert health["last_pass"]["outcome"] == "degraded"
    by_source = {s["source"]: s for s in health["sources"]}
    assert by_source["commits/gone"]["outcome"] == "failed"
    assert by_source["commits/gone"]["last_read_at"] is None  # never read: no freshness claimed
    assert "not a readable git repository" in by_source["commits/gone"]["note"]
    assert by_source["repository"]["outcome"] == "succeeded"


class _BrokenConnector:
    """A source whose batch makes the store write fail (a title is NOT NULL)."""

    source_id = "broken"
    project = "acme"

    def read(self, known: Any, cursor: Any, *, full: bool, now: str,
             progress: Any = None) -> SourceBatch:
        return SourceBatch(source="broken", upserts=[
            Artifact(id="STORY-0099", type="story", title=None, source="broken",  # type: ignore[arg-type]
                     project="acme")])


def _assert_failed_pass_left_revision_serving(inst: Instance, revision: int, snap: dict[str, Any],
                                              error: str) -> None:
    assert inst.snapshot() == snap
    health = inst.health()
    assert health["corpus_revision"] == revision
    assert health["last_pass"]["outcome"] == "failed"
    block = health["context_health"]
    assert block["last_pass_failed"] is True
    assert block["serving_revision"] == revision
    assert error in block["error"]
    assert health["index"]["current"] is True


def test_a_pass_that_fails_mid_write_leaves_the_previous_revision_serving(
    instance: Instance,
) -> None:
    g = instance.git
    g.write_and_commit(dict([story(1)]))
    first = instance.sync()
    snap = instance.snapshot()
    g.write_and_commit(dict([story(1, "Edited title"), story(2)]))
    config = load_config(instance.root)
    with pytest.raises(Refusal) as info:
        run_pass(instance.root, config,
                 connectors=[RepositoryConnector(instance.root, config), _BrokenConnector()])
    assert info.value.code == "pass-failed"
    assert f"revision {first['corpus_revision']}" in info.value.detail
    _assert_failed_pass_left_revision_serving(instance, first["corpus_revision"], snap,
                                              "IntegrityError")
    assert instance.get("STORY-0001").title == "Story number 1"
    assert instance.get("STORY-0002") is None
    # the next good pass lands the edits the failed one could not
    result = instance.sync()
    assert result["outcome"] == "succeeded"
    assert instance.get("STORY-0001").title == "Edited title"
    assert instance.get("STORY-0002") is not None
    assert "context_health" not in instance.health()


def test_a_linker_crash_fails_the_pass_without_a_trace_in_context(
    instance: Instance, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = instance.git
    g.write_and_commit(dict([story(1)]))
    first = instance.sync()
    snap = instance.snapshot()
    g.write_and_commit(dict([story(2, body="See STORY-0001.\n")]))

    def boom(self: Any, a: Artifact) -> Any:
        raise RuntimeError("linker exploded")

    monkeypatch.setattr(linker_module.Linker, "links_of", boom)
    with pytest.raises(Refusal) as info:
        instance.sync()
    assert info.value.code == "pass-failed"
    _assert_failed_pass_left_revision_serving(instance, first["corpus_revision"], snap,
                                              "RuntimeError: linker exploded")
    monkeypatch.undo()
    assert instance.sync()["outcome"] == "succeeded"
    assert [r["dst"] for r in instance.links("src='STORY-0002'")] == ["STORY-0001"]


def test_a_second_concurrent_pass_is_refused_busy(instance: Instance) -> None:
    instance.git.write_and_commit(dict([story(1)]))
    instance.sync()
    lock = FileLock(str(instance.root / ".revetly" / "pass.lock"))
    with lock:
        with pytest.raises(Refusal) as info:
            instance.sync()
        assert info.value.code == "busy"
        assert "revetly sync" in info.value.fix
    assert instance.sync()["outcome"] == "succeeded"


def test_a_torn_index_is_rebuilt_by_the_next_pass(instance: Instance) -> None:
    instance.git.write_and_commit(dict([story(1), story(2)]))
    instance.sync()
    (instance.root / ".revetly" / "index" / "REVISION").unlink()
    assert instance.health()["index"] == {"backend": "fts5", "revision": None, "current": False}
    instance.sync()
    assert instance.health()["index"]["current"] is True


# -- links through passes ------------------------------------------------------------------------


def test_a_dangling_link_is_re_pointed_when_its_target_lands(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit(dict([story(1, body="Waits on STORY-7.\n")]))
    instance.sync()
    (dangling,) = instance.links("src='STORY-0001'")
    assert (dangling["dst"], dangling["dst_key"]) == ("STORY-7", "STORY:7")
    g.write_and_commit(dict([story(7)]))
    instance.sync()
    (link,) = instance.links("src='STORY-0001'")
    assert (link["dst"], link["dst_key"]) == ("STORY-0007", "STORY:7")


def test_a_title_change_re_links_the_bodies_that_mention_it(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit(dict([
        story(1, "Checkout flow"),
        story(2, body="Builds on the checkout flow.\n"),
        story(3, body="Needs the payment page.\n"),
    ]))
    instance.sync()
    assert [r["src"] for r in instance.links("dst='STORY-0001'")] == ["STORY-0002"]
    g.write_and_commit(dict([story(1, "Payment page")]))
    instance.sync()
    assert [r["src"] for r in instance.links("dst='STORY-0001'")] == ["STORY-0003"]
    g.write_and_commit(dict([story(1, "Checkout flow")]))
    instance.sync()
    assert [r["src"] for r in instance.links("dst='STORY-0001'")] == ["STORY-0002"]


def test_decisions_get_statements_dated_by_their_creation(instance: Instance) -> None:
    g = instance.git
    sha = g.write_and_commit({"notes/DEC-0001.md": md(
        "DEC-0001", "Use Postgres", "decision",
        "## Context\n\nWe need SQL.\n\n## Decision\n\nPostgres for all data.\n")})
    instance.sync()
    snap = instance.snapshot()
    assert snap["statements"] == [{"id": "DEC-0001#statement", "artifact_id": "DEC-0001",
                                   "text": "Use Postgres: Postgres for all data.",
                                   "stated_at": iso(g.commit_time(sha))}]


def test_history_rows_follow_the_commits(instance: Instance) -> None:
    g = instance.git
    c1 = g.write_and_commit(dict([story(1)]), "Add one")
    instance.sync()
    c2 = g.remove_and_commit(["backlog/STORY-0001.md"], "Drop one")
    instance.sync()
    hist = [(h["path"], h["change"], h["revision"], h["summary"])
            for h in instance.snapshot()["history"]]
    assert sorted(hist) == sorted([("backlog/STORY-0001.md", "added", c1, "Add one"),
                                   ("backlog/STORY-0001.md", "deleted", c2, "Drop one")])


# -- incremental == full ---------------------------------------------------------------------


def full_snapshot_of(inst: Instance, where: Path) -> dict[str, Any]:
    """Copy the repository (not .revetly/) and read it with a full pass from scratch."""
    copy = inst.git.copy_to(where)
    Engine.open(copy.root).sync()
    store = Store(copy.root / ".revetly" / "context.db", readonly=True)
    try:
        return store.snapshot()
    finally:
        store.close()


def snapshot_diff(incremental: dict[str, Any], full: dict[str, Any]) -> str:
    lines = []
    for table in incremental:
        a = {json.dumps(r, sort_keys=True) for r in incremental[table]}
        b = {json.dumps(r, sort_keys=True) for r in full[table]}
        lines += [f"  {table} only incremental: {r}" for r in sorted(a - b)]
        lines += [f"  {table} only full:        {r}" for r in sorted(b - a)]
    return "\n".join(lines)


def assert_incremental_equals_full(inst: Instance, where: Path, story_so_far: str = "") -> None:
    inc = inst.snapshot()
    full = full_snapshot_of(inst, where)
    assert inc == full, f"incremental != full after:\n{story_so_far}\n{snapshot_diff(inc, full)}"


def test_a_re_pointed_link_survives_an_earlier_spelling_retired_by_an_edit(
    instance: Instance, tmp_path: Path
) -> None:
    # 1. the body names STORY-3 (not held): a dangling link STORY-0001 -> STORY-3
    # 2. an edit names STORY-0003 instead: STORY-3 retired, STORY-0003 stated (still dangling)
    # 3. STORY-0003 lands: re-pointing the retired STORY-3 row onto STORY-0003 must not
    #    overwrite the live link (UPDATE OR REPLACE in _relink replaces the live row)
    g = instance.git
    g.write_and_commit(dict([story(1, "Alpha", "See STORY-3.\n")]))
    instance.sync()
    g.write_and_commit(dict([story(1, "Alpha", "See STORY-0003.\n")]))
    instance.sync()
    g.write_and_commit(dict([story(3, "Gamma")]))
    instance.sync()
    assert [r["dst"] for r in instance.links("src='STORY-0001'")] == ["STORY-0003"]
    assert_incremental_equals_full(instance, tmp_path / "full")


def test_a_title_mention_link_does_not_depend_on_what_else_the_pass_linked(
    instance: Instance, tmp_path: Path
) -> None:
    # links.dst_key of a title-mention is taken from Linker.dst_keys, which only holds the
    # targets some *other* link of the same pass named by id: a full pass fills it, an
    # incremental one may not.
    g = instance.git
    g.write_and_commit(dict([story(1, "Checkout flow"),
                             story(2, "Beta", "Depends on STORY-0001.\n"),
                             story(3, "Gamma", "Nothing yet.\n")]))
    instance.sync()
    g.write_and_commit(dict([story(3, "Gamma", "Part of the checkout flow.\n")]))
    instance.sync()
    assert_incremental_equals_full(instance, tmp_path / "full")


def test_a_declared_link_suppresses_the_explicit_ref_once_its_target_lands(
    instance: Instance, tmp_path: Path
) -> None:
    # cites: [STORY-3] and a body naming STORY-0003, neither held: two links to two spellings.
    # When STORY-0003 lands, both point at it, and a full pass states only the declared one.
    g = instance.git
    g.write_and_commit(dict([story(1, "Alpha", "See STORY-0003.\n", cites=["STORY-3"])]))
    instance.sync()
    g.write_and_commit(dict([story(3, "Gamma")]))
    instance.sync()
    assert {(r["dst"], r["method"]) for r in instance.links("src='STORY-0001'")} == {
        ("STORY-0003", "declared")}
    assert_incremental_equals_full(instance, tmp_path / "full")


def test_an_edit_reverted_between_passes_still_moves_the_update_time(
    instance: Instance, tmp_path: Path
) -> None:
    # Two commits between passes leave the blob as it was, so the file is not re-read, but
    # history gained two changes: source_updated_at must follow history as a full pass does.
    g = instance.git
    g.write_and_commit(dict([story(1, body="v1\n")]))
    instance.sync()
    g.write_and_commit(dict([story(1, body="v2\n")]))
    last = g.write_and_commit(dict([story(1, body="v1\n")]))
    instance.sync()
    assert instance.get("STORY-0001").source_updated_at == iso(g.commit_time(last))
    assert_incremental_equals_full(instance, tmp_path / "full")


def test_a_new_title_finds_bodies_that_only_python_case_folds_to_it(
    instance: Instance, tmp_path: Path
) -> None:
    # The incremental scan pre-filters bodies with SQLite's instr(lower(body), probe), and
    # SQLite's lower() folds ASCII only: "\u212a" (KELVIN SIGN) lowers to "k" in Python's
    # tokens(), so a full pass finds the mention and an incremental one never looks.
    g = instance.git
    g.write_and_commit(dict([story(1, "Alpha", "Move it to the \u212aubernetes cluster.\n")]))
    instance.sync()
    g.write_and_commit(dict([story(2, "Kubernetes cluster")]))
    instance.sync()
    assert_incremental_equals_full(instance, tmp_path / "full")


# The property: any sequence of add / edit / delete commits, each followed by an incremental
# pass, ends where a full pass over a fresh copy ends.

POOL = ["STORY-0001", "STORY-0002", "STORY-0003", "DEC-0001", "DEC-0002"]
TITLES = ["Checkout flow", "Payment retries", "Invoice export", "Checkout flow redesign",
          "Audit trail", "Login"]


def _spellings(aid: str) -> list[str]:
    fam, num = aid.split("-")
    return [aid, aid.lower(), f"{fam}-{int(num)}", f"{fam} {int(num)}"]


_ref = st.tuples(st.sampled_from([*POOL, "STORY-0009"]), st.integers(0, 3)).map(
    lambda t: _spellings(t[0])[t[1]])
_fragment = st.one_of(
    st.just("Plain words about nothing in particular."),
    _ref.map(lambda r: f"See {r} for the background."),
    st.sampled_from(TITLES).map(lambda t: f"This builds on the {t.lower()} work."),
    st.just("It covers STORY-0001..0003."),
    st.just("## Acceptance criteria\n\n- One row per invoice\n- Two decimals"),
)
_put = st.builds(
    lambda i, t, frags, parent, cites: ("put", POOL[i], TITLES[t], "\n\n".join(frags) + "\n",
                                        parent, cites),
    st.integers(0, len(POOL) - 1), st.integers(0, len(TITLES) - 1),
    st.lists(_fragment, max_size=4), st.one_of(st.none(), _ref),
    st.lists(_ref, max_size=2),
)
_delete = st.builds(lambda i: ("delete", POOL[i]), st.integers(0, len(POOL) - 1))
_ops = st.lists(st.one_of(_put, _put, _delete), min_size=1, max_size=8)


def _path(aid: str) -> str:
    return f"{'notes' if aid.startswith('DEC') else 'backlog'}/{aid}.md"


def _apply(inst: Instance, op: tuple[Any, ...]) -> str:
    if op[0] == "put":
        _kind, aid, title, body, parent, cites = op
        typ = "decision" if aid.startswith("DEC") else "story"
        inst.git.write(_path(aid), md(aid, title, typ, body, parent=parent, cites=cites or None))
        inst.git.commit(f"put {aid}")
        return f"put {aid} title={title!r} parent={parent} cites={cites} body={body!r}"
    aid = op[1]
    if (inst.root / _path(aid)).exists():
        inst.git.remove(_path(aid))
    inst.git.commit(f"delete {aid}")
    return f"delete {aid}"


# No shrink phase: every example runs real git commits and passes, and shrinking a failure
# costs minutes. A failure still reports the whole op list and the snapshot difference.
@settings(max_examples=25, deadline=None,
          phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_ops)
def test_incremental_passes_end_where_a_full_pass_does(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory(prefix="revetly-prop-") as tmp:
        inst = Instance(Path(tmp) / "acme")
        done: list[str] = []
        for op in ops:
            done.append(_apply(inst, op))
            inst.sync()
        assert_incremental_equals_full(inst, Path(tmp) / "full", "\n".join(done))


# Every change a user can make to the work tree, left uncommitted: the incremental pass that
# follows (git status tells it what to look at) ends where a full pass from the same store
# ends (same clock: a file gone from the work tree is removed at the pass's time).

def _later(path: Path) -> None:
    st_ = path.lstat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000_000), follow_symlinks=False)


def _same_size_edit(root: Path) -> None:
    path = root / "backlog/STORY-0001.md"
    path.write_bytes(path.read_bytes().replace(b"Alpha", b"Omega"))
    _later(path)


def _replace_by_symlink(root: Path) -> None:
    path = root / "backlog/STORY-0001.md"
    path.unlink()
    path.symlink_to("STORY-0002.md")


WORK_TREE_CHANGES: dict[str, Callable[[Path], None]] = {
    "same-size edit": _same_size_edit,
    "touch": lambda root: _later(root / "backlog/STORY-0001.md"),
    "add": lambda root: (root / "backlog/STORY-0003.md").write_text(
        md("STORY-0003", "Gamma", body="See STORY-0001.\n")),
    "delete": lambda root: (root / "backlog/STORY-0001.md").unlink(),
    "rename": lambda root: (root / "backlog/STORY-0001.md").rename(
        root / "backlog/renamed.md"),
    "chmod only": lambda root: (root / "backlog/STORY-0001.md").chmod(0o755),
    "replaced by a symlink": _replace_by_symlink,
}


@pytest.mark.parametrize("change", sorted(WORK_TREE_CHANGES))
def test_a_work_tree_change_ends_where_a_full_pass_does(
    instance: Instance, tmp_path: Path, change: str
) -> None:
    g = instance.git
    g.write_and_commit(dict([story(1, "Alpha", "Alpha's body.\n"),
                             story(2, "Beta", "Builds on STORY-0001.\n")]))
    instance.sync()
    WORK_TREE_CHANGES[change](instance.root)
    copy = g.copy_to(tmp_path / "full", ignore_state=False)
    at = "2031-01-01T00:00:00+00:00"
    config = load_config(instance.root)
    assert run_pass(instance.root, config, clock=lambda: at).full is False
    assert run_pass(copy.root, config, full=True, clock=lambda: at).full is True
    store = Store(copy.root / ".revetly" / "context.db", readonly=True)
    try:
        full = store.snapshot()
    finally:
        store.close()
    incremental = instance.snapshot()
    assert incremental == full, f"{change}:\n{snapshot_diff(incremental, full)}"


def test_a_rewound_head_ends_where_a_full_pass_does(instance: Instance, tmp_path: Path) -> None:
    import pygit2

    g = instance.git
    g.write_and_commit(dict([story(1), story(2)]))
    base = g.head
    instance.sync()
    g.write_and_commit(dict([story(1, "Edited then abandoned")]))
    instance.sync()
    assert base is not None
    g.repo.reset(pygit2.Oid(hex=base), pygit2.enums.ResetMode.HARD)
    result = instance.sync()
    assert result["full"] is False
    fresh = g.copy_to(tmp_path / "fresh")
    Engine.open(fresh.root).sync()
    store = Store(fresh.root / ".revetly" / "context.db", readonly=True)
    try:
        assert instance.snapshot() == store.snapshot()
    finally:
        store.close()
    assert instance.get("STORY-0001").title == "Story number 1"


class _PaceRecorder:
    """A source with nothing to read that notes the collector's thresholds while it is read."""

    source_id = "pace"
    project = "acme"

    def __init__(self) -> None:
        self.seen: list[tuple[int, int, int]] = []

    def read(self, known: Any, cursor: Any, *, full: bool, now: str,
             progress: Any = None) -> SourceBatch:
        self.seen.append(gc.get_threshold())
        return SourceBatch(source="pace")


def test_a_full_pass_runs_at_the_pass_pace_and_an_incremental_one_at_the_process_pace(
    instance: Instance,
) -> None:
    instance.git.write_and_commit(dict([story(1)]))
    config = load_config(instance.root)
    recorder = _PaceRecorder()
    before = gc.get_threshold()
    for full in (True, False):
        run_pass(instance.root, config, full=full,
                 connectors=[RepositoryConnector(instance.root, config), recorder])
        assert gc.get_threshold() == before
    assert recorder.seen == [paced_threshold(before), before]
