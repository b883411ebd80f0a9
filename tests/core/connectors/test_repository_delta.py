"""The repository read of only what can have changed since its cursor reads as the whole listing.

Each case drives a real instance through edits (committed, staged or left in the work tree),
additions, deletions, renames, duplicate ids and broken files, syncing after each. Before
each sync, the read a pass makes (its cursor, and the store's rows looked up one at a time)
is compared with the read of the whole listing from the same store rows: they must agree on
everything the pass would write.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from revetly_core.config import load_config
from revetly_core.connectors.base import SourceBatch
from revetly_core.connectors.held import DictHeld, key_of
from revetly_core.connectors.repository import SOURCE_ID, RepositoryConnector
from revetly_core.store.known import StoredKnown

from tests.core.gitrepo import Instance, md

NOW = "2030-01-01T00:00:00+00:00"
DELTA_KEYS = ("worktree", "rejudge")
SLOTS = 5


def path_of(slot: int) -> str:
    return f"backlog/STORY-{slot}.md"


def summary(batch: SourceBatch) -> dict[str, Any]:
    """Everything of a read that the pass writes or keeps."""
    return {
        "upserts": sorted((a.id, a.source_path, a.blob, a.deleted, a.deleted_clock)
                          for a in batch.upserts),
        "removals": sorted((r.artifact_id, r.clock, r.note) for r in batch.removals),
        "problems": sorted((p.path, p.code, p.detail, p.blob) for p in batch.problems),
        "cleared": sorted(batch.cleared_paths),
        "history": [(e.artifact_id, e.change, e.revision) for e in batch.history],
        "history_complete": batch.history_complete,
        "read": batch.read_count,
        "cursor": batch.cursor,
    }


def both_reads(inst: Instance) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(the read with the pass's cursor and row lookups, the whole listing's read, cursor)."""
    connector = RepositoryConnector(inst.root, load_config(inst.root))
    store = inst.store()
    try:
        cursor = store.source_state(SOURCE_ID)
        whole_cursor = {k: v for k, v in cursor.items() if k not in DELTA_KEYS}
        delta = connector.read(StoredKnown(store, SOURCE_ID), cursor, full=False, now=NOW)
        whole = connector.read(store.known(SOURCE_ID), whole_cursor, full=False, now=NOW)
    finally:
        store.close()
    return summary(delta), summary(whole), cursor


def apply(inst: Instance, op: tuple[str, int, int], step: int) -> None:
    """One change to the instance: what a team does between two syncs."""
    kind, slot, other = op
    g, rel = inst.git, path_of(slot)
    exists = (inst.root / rel).exists()
    if kind == "write":
        g.write(rel, md(f"STORY-{slot}", f"Story {slot} take {step}", body=f"step {step}\n"))
    elif kind == "respell" and exists:
        g.write(rel, md(f"STORY-0{slot}", f"Story {slot} respelled {step}"))
    elif kind == "duplicate":  # the other's id, spelled with or without padding
        g.write(rel, md(f"STORY-{'0' * (step % 2)}{other}", f"Story {other} again {step}"))
    elif kind == "break":
        g.write(rel, "---\nid: [unclosed\n---\nbody\n")
    elif kind == "unlink" and exists:
        g.unlink(rel)
    elif kind == "rename" and exists and not (inst.root / path_of(other)).exists():
        (inst.root / rel).rename(inst.root / path_of(other))
    elif kind == "commit":
        g.commit(f"step {step}")
    elif kind == "stage":
        repo = g.repo
        repo.index.read()
        if exists:
            repo.index.add(rel)
        repo.index.write()


OPS = st.tuples(
    st.sampled_from(("write", "write", "respell", "duplicate", "break", "unlink", "rename",
                     "commit", "commit", "stage")),
    st.integers(0, SLOTS - 1), st.integers(0, SLOTS - 1),
)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.lists(OPS, min_size=1, max_size=3), min_size=2, max_size=6))
def test_the_delta_read_reads_as_the_whole_listing(
    tmp_path_factory: pytest.TempPathFactory, rounds: list[list[tuple[str, int, int]]]
) -> None:
    inst = Instance(tmp_path_factory.mktemp("delta") / "acme")
    for slot in range(3):
        inst.git.write(path_of(slot), md(f"STORY-{slot}", f"Story {slot}"))
    inst.git.commit("first stories")
    inst.sync()
    for step, ops in enumerate(rounds):
        for op in ops:
            apply(inst, op, step)
        delta, whole, cursor = both_reads(inst)
        assert all(k in cursor for k in DELTA_KEYS)  # every pass writes the delta's cursor
        assert delta == whole
        inst.sync()


def test_a_pass_that_changed_nothing_re_reads_nothing(instance: Instance) -> None:
    for slot in range(3):
        instance.git.write(path_of(slot), md(f"STORY-{slot}", f"Story {slot}"))
    instance.git.commit("stories")
    instance.sync()
    delta, whole, _ = both_reads(instance)
    assert delta == whole
    assert delta["read"] == 0 and delta["upserts"] == [] and delta["removals"] == []


def test_a_work_tree_edit_reverted_is_read_again(instance: Instance) -> None:
    """A file git status reported at the last pass is looked at again even when it no longer
    is: its stored blob is the edited one, and the file is back to HEAD's."""
    g = instance.git
    g.write(path_of(0), md("STORY-0", "Committed"))
    g.commit("story")
    instance.sync()
    g.write(path_of(0), md("STORY-0", "Edited, not committed"))
    instance.sync()
    g.write(path_of(0), md("STORY-0", "Committed"))
    delta, whole, cursor = both_reads(instance)
    assert cursor["worktree"] == [path_of(0)]
    assert delta == whole and delta["read"] == 1


def test_a_duplicate_id_is_judged_again_every_pass(instance: Instance) -> None:
    g = instance.git
    g.write(path_of(0), md("STORY-0", "First"))
    g.write(path_of(1), md("STORY-0", "Second, same id"))
    g.commit("two files, one id")
    instance.sync()
    delta, whole, cursor = both_reads(instance)
    assert cursor["rejudge"] == [path_of(1)]
    assert delta == whole
    assert [p[1] for p in delta["problems"]] == ["duplicate-id"]


def test_a_file_sorting_first_takes_an_unchanged_files_id_over(instance: Instance) -> None:
    """The unchanged holder, outside the delta, is named the duplicate, and its own spelling
    of the id is removed, as the whole listing would have it."""
    g = instance.git
    g.write("backlog/STORY-5.md", md("STORY-5", "Held"))
    g.commit("story")
    instance.sync()
    g.write("backlog/A.md", md("STORY-05", "Sorts first, same id padded"))
    delta, whole, _ = both_reads(instance)
    assert delta == whole
    assert delta["removals"] == [("STORY-5", "found", "missing from a complete read")]
    assert [(p[0], p[1]) for p in delta["problems"]] == [("backlog/STORY-5.md", "duplicate-id")]


def test_an_older_cursor_reads_the_whole_listing_once(instance: Instance) -> None:
    g = instance.git
    g.write(path_of(0), md("STORY-0", "First"))
    g.commit("story")
    instance.sync()
    connector = RepositoryConnector(instance.root, load_config(instance.root))
    store = instance.store()
    try:
        cursor = store.source_state(SOURCE_ID)
        older = {k: v for k, v in cursor.items() if k not in DELTA_KEYS}
        batch = connector.read(StoredKnown(store, SOURCE_ID), older, full=False, now=NOW)
    finally:
        store.close()
    assert batch.read_count == 0 and batch.removals == []
    assert batch.cursor == cursor


# -- the store's rows looked up one at a time ----------------------------------------------


@pytest.fixture()
def held_instance(instance: Instance) -> Instance:
    g = instance.git
    g.write(path_of(0), md("STORY-0", "Zero"))
    g.write(path_of(1), md("STORY-01", "One, padded"))
    g.write(path_of(2), md("STORY-2", "Two"))
    g.commit("stories")
    instance.sync()
    g.remove(path_of(2))
    g.commit("story 2 goes")
    instance.sync()
    return instance


def test_stored_known_looks_up_what_the_whole_read_holds(held_instance: Instance) -> None:
    store = held_instance.store()
    try:
        whole = store.known(SOURCE_ID)
        lazy = StoredKnown(store, SOURCE_ID)
        for artifact_id in [*whole, "STORY-404"]:
            assert lazy.get(artifact_id) == whole.get(artifact_id)
            assert (artifact_id in lazy) == (artifact_id in whole)
        assert lazy["STORY-01"] == whole["STORY-01"]
        with pytest.raises(KeyError):
            lazy["STORY-404"]
        by_dict = DictHeld(whole)
        for path in [path_of(0), path_of(1), path_of(2), "backlog/none.md"]:
            assert lazy.at_path(path) == by_dict.at_path(path)
        for artifact_id in ["STORY-0", "STORY-1", "STORY-2", "STORY-9"]:
            assert lazy.with_key(key_of(artifact_id)) == by_dict.with_key(key_of(artifact_id))
        assert lazy.with_key(key_of("STORY-1"))[0].id == "STORY-01"
        assert lazy.at_path(path_of(2))[0].deleted
    finally:
        store.close()


def test_stored_known_reads_every_row_when_iterated(held_instance: Instance) -> None:
    store = held_instance.store()
    try:
        whole = store.known(SOURCE_ID)
        lazy = StoredKnown(store, SOURCE_ID)
        assert len(lazy) == len(whole) == 3
        assert sorted(lazy) == sorted(whole)
        assert dict(lazy.items()) == whole
        assert sorted(lazy.values()) == sorted(whole.values())
        assert lazy == whole
    finally:
        store.close()


def test_a_plain_dict_of_known_answers_the_same_lookups(tmp_path: Path) -> None:
    from revetly_core.connectors.base import KnownArtifact

    a = KnownArtifact("STORY-1", "backlog/a.md", "b1", True, NOW, "found")
    b = KnownArtifact("STORY-2", "backlog/a.md", "b2", False, None, None)
    held = DictHeld({"STORY-2": b, "STORY-1": a})
    assert held.at_path("backlog/a.md") == [b, a]  # the mapping's own order
    assert held.with_key(key_of("STORY-001")) == [a]
    assert held.by_id("STORY-3") is None


def test_a_broken_file_yields_its_id_to_the_file_that_now_declares_it(instance: Instance) -> None:
    """Regression (found by the property above): a file that broke kept its last good artifact
    serving after another file took that artifact's id, so two live rows shared one id key; a
    later pass then dropped the other file's artifact unseen, and the delta never re-read it."""
    for slot in range(3):
        instance.git.write(path_of(slot), md(f"STORY-{slot}", f"Story {slot}"))
    instance.git.commit("first stories")
    instance.sync()
    rounds = [[("respell", 2, 0), ("duplicate", 0, 2)], [("break", 0, 0)], [("commit", 0, 0)],
              [("write", 0, 0)]]
    for step, ops in enumerate(rounds):
        for op in ops:
            apply(instance, op, step)
        delta, whole, _ = both_reads(instance)
        assert delta == whole
        instance.sync()
        store = instance.store()
        try:
            live = {k.id: k.path for k in store.known(SOURCE_ID).values() if not k.deleted}
        finally:
            store.close()
        keys = [key_of(i) for i in live]
        assert len(keys) == len(set(keys)), live  # one live artifact per id key, every pass
        if step == 1:  # STORY-0.md broke: the id it declared is STORY-2.md's now
            assert live["STORY-02"] == "backlog/STORY-2.md" and "STORY-2" not in live
    assert live["STORY-02"] == "backlog/STORY-2.md"
