"""The SQLite store: schema, artifacts, links, statements, history, problems, passes, snapshot."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.connectors.base import FileProblem, KnownArtifact
from revetly_core.model import Artifact, HistoryEntry, Link
from revetly_core.refusal import Refusal
from revetly_core.store.db import (
    ARTIFACT_COLUMNS,
    SCHEMA_VERSION,
    Store,
    artifact_row,
    row_to_artifact,
)
from revetly_core.store.rows import READ_COLUMNS, tuple_to_artifact

T0 = "2024-01-01T00:00:00+00:00"
T1 = "2024-01-02T00:00:00+00:00"
T2 = "2024-01-03T00:00:00+00:00"


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "state" / "context.db")
    yield s  # type: ignore[misc]
    s.close()


def art(aid: str = "STORY-0001", **kw: object) -> Artifact:
    base: dict[str, object] = {"id": aid, "type": "story", "title": f"Title of {aid}",
                               "source": "repository", "project": "acme"}
    base.update(kw)
    return Artifact(**base)  # type: ignore[arg-type]


# -- schema -------------------------------------------------------------------------------------


def test_a_new_store_creates_its_folder_and_schema(tmp_path: Path) -> None:
    s = Store(tmp_path / "a" / "b" / "context.db")
    try:
        assert (tmp_path / "a" / "b" / "context.db").is_file()
        assert s.schema_version() == SCHEMA_VERSION
        assert s.revision == 0
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        s.close()


def _make_v1(path: Path) -> None:
    """A store as schema 1 left it: no id_key column, no phrases table."""
    s = Store(path)
    s.upsert_artifacts([art("STORY-0001"), art("STORY-0002")], T0)
    s.set_meta("corpus_revision", "4")
    s.set_meta("config_fingerprint", "abc")
    s.conn.execute("DROP INDEX artifacts_id_key")
    s.conn.execute("ALTER TABLE artifacts DROP COLUMN id_key")
    s.conn.execute("DROP TABLE phrases")
    s.conn.execute("ALTER TABLE problems DROP COLUMN severity")
    s.set_meta("schema_version", "1")
    s.close()


def test_a_schema_1_store_is_migrated_and_its_next_pass_made_full(tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    _make_v1(path)
    s = Store(path)
    try:
        assert s.schema_version() == SCHEMA_VERSION
        cols = {r[1] for r in s.conn.execute("PRAGMA table_info(artifacts)")}
        assert "id_key" in cols
        assert s.phrase_lengths() == []
        assert s.revision == 4 and s.all_ids() == ["STORY-0001", "STORY-0002"]
        assert s.get_meta("config_fingerprint") is None  # forces the next pass to be full
    finally:
        s.close()
    reader = Store(path, readonly=True)
    reader.close()


def test_reopening_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    s = Store(path)
    s.upsert_artifacts([art()], T0)
    s.set_meta("corpus_revision", "3")
    s.close()
    again = Store(path)
    try:
        assert again.revision == 3
        assert again.get("STORY-0001") is not None
    finally:
        again.close()


def test_readonly_without_a_database_is_not_synced(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as info:
        Store(tmp_path / "missing.db", readonly=True)
    assert info.value.code == "not-synced"
    assert "revetly sync" in info.value.fix
    assert not (tmp_path / "missing.db").exists()


def test_readonly_refuses_an_older_schema_as_not_synced(tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    s = Store(path)
    s.set_meta("schema_version", str(SCHEMA_VERSION - 1))
    s.close()
    with pytest.raises(Refusal) as info:
        Store(path, readonly=True)
    assert info.value.code == "not-synced"


def test_readonly_refuses_a_newer_schema_naming_the_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    s = Store(path)
    s.set_meta("schema_version", str(SCHEMA_VERSION + 1))
    s.close()
    with pytest.raises(Refusal) as info:
        Store(path, readonly=True)
    assert info.value.code == "refused"
    assert "upgrade" in info.value.fix


def test_a_newer_schema_is_refused_for_writing(tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    s = Store(path)
    s.set_meta("schema_version", str(SCHEMA_VERSION + 1))
    s.close()
    with pytest.raises(Refusal) as info:
        Store(path)
    assert info.value.code == "refused"
    assert "upgrade" in info.value.fix


def test_an_older_schema_without_a_migration_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    s = Store(path)
    s.set_meta("schema_version", "0")
    s.close()
    with pytest.raises(Refusal) as info:
        Store(path)
    assert info.value.code == "refused"
    assert "no migration" in info.value.detail


def test_readonly_reads_what_a_writer_committed(store: Store) -> None:
    store.upsert_artifacts([art()], T0)
    reader = Store(store.path, readonly=True)
    try:
        assert reader.get("STORY-0001") is not None
    finally:
        reader.close()


# -- transactions ---------------------------------------------------------------------------


def test_a_transaction_commits_on_success(store: Store) -> None:
    with store.transaction():
        store.upsert_artifacts([art()], T0)
        store.set_meta("corpus_revision", "1")
    assert store.revision == 1 and store.get("STORY-0001") is not None


def test_a_failed_transaction_changes_nothing(store: Store) -> None:
    store.upsert_artifacts([art("STORY-0001")], T0)
    with pytest.raises(sqlite3.IntegrityError), store.transaction():
        store.set_meta("corpus_revision", "9")
        store.upsert_artifacts([art("STORY-0002")], T0)
        store.upsert_artifacts([art("STORY-0003", title=None)], T0)
    assert store.revision == 0
    assert store.all_ids() == ["STORY-0001"]
    # and the connection is usable afterwards
    with store.transaction():
        store.upsert_artifacts([art("STORY-0004")], T0)
    assert store.all_ids() == ["STORY-0001", "STORY-0004"]


# -- artifacts ---------------------------------------------------------------------------------


def test_an_artifact_round_trips_through_its_row(store: Store) -> None:
    a = art(body="Body", status="ready", parent="FEAT-1", owner="dana", criteria=["a", "b"],
            criteria_unparsed=True, metadata={"declared": {"parent": "FEAT-1"}, "x": [1, 2]},
            source_path="backlog/STORY-0001.md", source_uri="backlog/STORY-0001.md", blob="abc",
            created_at=T0, source_updated_at=T1, aliases=["CSV export"])
    store.upsert_artifacts([a], T2)
    got = store.get("STORY-0001")
    assert got == a
    row = store.conn.execute("SELECT kind, ingested_at, withheld FROM artifacts").fetchone()
    assert tuple(row) == ("work-item", T2, 0)


def test_artifact_row_and_row_to_artifact_are_inverse(store: Store) -> None:
    a = art(metadata={"withheld": True}, deleted=True, deleted_at=T1, deleted_clock="found",
            deleted_note="gone", provenance="mirror")
    row = dict(zip(ARTIFACT_COLUMNS, artifact_row(a, T0), strict=True))
    assert row["withheld"] == 1  # withheld comes from the metadata flag
    assert row["id_key"] == "STORY:1"
    assert row["kind"] == "work-item"
    store.upsert_artifacts([a], T0)
    assert row_to_artifact(store.conn.execute("SELECT * FROM artifacts").fetchone()) == a


@given(st.lists(st.tuples(st.sampled_from(["STORY-1", "STORY-2", "DEC-1"]), st.text(min_size=1)),
                max_size=12))
@settings(max_examples=30, deadline=None)  # no timed assertions: a loaded machine is slow
def test_upserting_keeps_the_last_version_of_each_id(
    tmp_path_factory: pytest.TempPathFactory, versions: list[tuple[str, str]]
) -> None:
    s = Store(tmp_path_factory.mktemp("db") / "context.db")
    try:
        for aid, title in versions:
            s.upsert_artifacts([art(aid, title=title)], T0)
        expected = dict(versions)
        assert s.all_ids() == sorted(expected)
        assert {a.id: a.title for a in s.artifacts()} == expected
    finally:
        s.close()


def test_known_describes_one_source(store: Store) -> None:
    store.upsert_artifacts([art("STORY-1", source_path="p1", blob="b1"),
                            art("c0ffee", type="commit", source="commits/x", blob="c0ffee")], T0)
    store.mark_deleted("STORY-1", T1, "found", "note")
    assert store.known("repository") == {
        "STORY-1": KnownArtifact("STORY-1", "p1", "b1", True, T1, "found")}
    assert set(store.known("commits/x")) == {"c0ffee"}
    assert store.known("nothing") == {}


def test_mark_deleted(store: Store) -> None:
    store.upsert_artifacts([art()], T0)
    store.mark_deleted("STORY-0001", T1, "source-declared", "removed by commit abc")
    a = store.get("STORY-0001")
    assert a is not None
    assert (a.deleted, a.deleted_at, a.deleted_clock, a.deleted_note) == (
        True, T1, "source-declared", "removed by commit abc")


def test_artifacts_filters_and_orders_by_id(store: Store) -> None:
    store.upsert_artifacts([art("STORY-2"), art("STORY-1"), art("DEC-1", type="decision")], T0)
    assert [a.id for a in store.artifacts()] == ["DEC-1", "STORY-1", "STORY-2"]
    assert [a.id for a in store.artifacts("type=?", ("story",))] == ["STORY-1", "STORY-2"]
    assert store.get("nope") is None


def test_fill_times_from_history_uses_first_and_last_change(store: Store) -> None:
    store.upsert_artifacts([art("STORY-1", source_path="backlog/s1.md"),
                            art("STORY-2", source_path="backlog/s2.md",
                                metadata={"declared_created": "2020-01-01",
                                          "declared_updated": "2020-02-02"})], T0)
    store.add_history("repository", [
        HistoryEntry("backlog/s1.md", T0, "added", "r0"),
        HistoryEntry("backlog/s1.md", T1, "modified", "r1"),
        HistoryEntry("backlog/s1.md", T2, "deleted", "r2"),
        HistoryEntry("backlog/s2.md", T1, "added", "r1"),
    ])
    store.fill_times_from_history("repository", ["STORY-1", "STORY-2"])
    s1, s2 = store.get("STORY-1"), store.get("STORY-2")
    assert s1 is not None and s2 is not None
    assert (s1.created_at, s1.source_updated_at) == (T0, T1)  # a deletion is not an update
    assert (s2.created_at, s2.source_updated_at) == ("2020-01-01", "2020-02-02")


def test_fill_times_keeps_times_a_source_set_without_history(store: Store) -> None:
    commit = art("c0ffee", type="commit", source="commits/code", created_at=T1,
                 source_updated_at=T1, source_path="code@c0ffee")
    store.upsert_artifacts([commit], T0)
    store.fill_times_from_history("commits/code", ["c0ffee"])
    got = store.get("c0ffee")
    assert got is not None
    assert (got.created_at, got.source_updated_at) == (T1, T1)


# -- id keys and mention phrases ---------------------------------------------------------------


def test_ids_for_keys_gives_the_lowest_held_spelling(store: Store) -> None:
    store.upsert_artifacts([art("STORY-0012"), art("STORY-12"), art("DEC-3"),
                            art("c0ffee", type="commit", source="commits/x")], T0)
    assert store.ids_for_keys(["STORY:12", "DEC:3", "BUG:1"]) == {"STORY:12": "STORY-0012",
                                                                "DEC:3": "DEC-3"}
    assert store.ids_for_keys([]) == {}


def test_ids_for_keys_in_chunks(store: Store) -> None:
    store.upsert_artifacts([art(f"STORY-{i}") for i in range(1, 1202)], T0)
    keys = [f"STORY:{i}" for i in range(1, 1202)]
    assert len(store.ids_for_keys(keys)) == 1201


def test_phrases_round_trip(store: Store) -> None:
    store.replace_phrases({"STORY-1": ["checkout flow", "csv"], "STORY-2": ["checkout flow"]})
    assert store.phrases_of(["STORY-1", "STORY-2", "STORY-3"]) == {
        "STORY-1": {"checkout flow", "csv"}, "STORY-2": {"checkout flow"}}
    assert store.phrase_lengths() == [1, 2]
    assert store.artifacts_with_phrases(["checkout flow", "nothing"]) == {"STORY-1", "STORY-2"}
    store.replace_phrases({"STORY-1": ["payment page"], "STORY-2": []})
    assert store.phrases_of(["STORY-1", "STORY-2"]) == {"STORY-1": {"payment page"}}
    assert store.phrase_lengths() == [2]
    assert store.artifacts_with_phrases([]) == set()


# -- links ------------------------------------------------------------------------------------


def link(src: str, dst: str, relation: str = "references", method: str = "explicit-ref",
         **detail: object) -> Link:
    return Link(src, dst, relation, method, tuple(sorted(detail.items())))


def test_state_links_inserts_and_keeps_the_first_valid_time(store: Store) -> None:
    store.state_links([link("A-1", "B-1", why="x")], T0)
    store.state_links([link("A-1", "B-1", why="y")], T1)
    (row,) = store.live_links()
    assert (row["valid_at"], row["invalid_at"]) == (T0, None)
    assert json.loads(row["detail"]) == {"why": "y"}
    assert row["dst_key"] == "B:1"  # derived from the target's spelling


def test_a_link_to_something_not_id_shaped_has_no_key(store: Store) -> None:
    store.state_links([link("DEL-1", "abcdef0123", "implemented_by", "declared")], T0)
    (row,) = store.live_links()
    assert row["dst_key"] is None


def test_retired_links_are_revived_with_a_new_valid_time(store: Store) -> None:
    store.state_links([link("A-1", "B-1")], T0)
    store.retire_links([("A-1", "B-1", "references", "explicit-ref")], T1)
    assert store.live_links() == []
    row = store.conn.execute("SELECT invalid_at FROM links").fetchone()
    assert row[0] == T1
    store.state_links([link("A-1", "B-1")], T2)
    (live,) = store.live_links()
    assert (live["valid_at"], live["invalid_at"]) == (T2, None)


def test_retire_links_from(store: Store) -> None:
    store.state_links([link("A-1", "B-1"), link("A-1", "C-1"), link("B-1", "C-1")], T0)
    store.retire_links_from(["A-1"], T1)
    assert [(r["src"], r["dst"]) for r in store.live_links()] == [("B-1", "C-1")]


def test_live_links_filter(store: Store) -> None:
    store.state_links([link("A-1", "B-1"), link("A-1", "B-1", "mentions", "title-mention")], T0)
    assert [r["method"] for r in store.live_links("dst=?", ("B-1",))] == [
        "title-mention", "explicit-ref"]  # ordered by relation: mentions, then references
    assert store.live_links("method='declared'") == []


# -- statements, history, problems, sources, passes -------------------------------------------


def test_replace_statements(store: Store) -> None:
    store.replace_statements([], [("DEC-1#statement", "DEC-1", "one", T0),
                                  ("DEC-2#statement", "DEC-2", "two", None)])
    store.replace_statements(["DEC-1"], [("DEC-1#statement", "DEC-1", "one, revised", T1)])
    store.replace_statements(["DEC-2"], [])
    rows = [tuple(r) for r in store.conn.execute("SELECT * FROM statements")]
    assert rows == [("DEC-1#statement", "DEC-1", "one, revised", T1)]


def test_history_is_keyed_by_source_path_and_revision(store: Store) -> None:
    e = HistoryEntry("backlog/a.md", T0, "added", "r1", "Dana", "Add a")
    store.add_history("repository", [e, e])
    store.add_history("commits/x", [e])
    assert store.conn.execute("SELECT COUNT(*) FROM history").fetchone()[0] == 2
    store.clear_history("repository")
    assert [r[0] for r in store.conn.execute("SELECT source FROM history")] == ["commits/x"]


def test_problems_replace_incrementally_or_wholly(store: Store) -> None:
    p = [FileProblem("repository", "a.md", "bad-yaml", "x"),
         FileProblem("repository", "b.md", "binary", "y")]
    store.replace_problems("repository", [], p, full=False)
    assert [r["path"] for r in store.problems()] == ["a.md", "b.md"]
    store.replace_problems("repository", ["a.md"], [], full=False)
    assert [r["path"] for r in store.problems()] == ["b.md"]
    store.replace_problems("repository", [], [FileProblem("repository", "c.md", "schema", "z")],
                           full=True)
    assert [(r["path"], r["code"]) for r in store.problems()] == [("c.md", "schema")]


def test_record_source_keeps_the_cursor_when_none_is_given(store: Store) -> None:
    store.record_source("repository", "acme", cursor={"head": "abc"}, at=T0,
                        outcome="succeeded", floor=None, gaps=[], partial=False)
    store.record_source("repository", "acme", cursor=None, at=T1, outcome="failed",
                        floor=None, gaps=["g"], partial=True)
    assert store.source_state("repository") == {"head": "abc"}
    (row,) = store.sources()
    assert row["last_outcome"] == "failed"
    assert json.loads(row["gaps"]) == ["g"] and row["partial"] == 1
    assert store.source_state("unknown") == {}


def test_a_failed_read_keeps_the_time_of_the_last_read_that_landed(store: Store) -> None:
    store.record_source("repository", "acme", cursor={}, at=T0, outcome="succeeded",
                        floor=None, gaps=[], partial=False)
    store.record_source("repository", "acme", cursor=None, at=T1, outcome="failed",
                        floor=None, gaps=[], partial=False)
    (row,) = store.sources()
    assert row["last_read_at"] == T0


def test_passes_and_the_ledger(store: Store) -> None:
    p1 = store.start_pass(T0, True)
    assert store.last_pass() is None  # a running pass is not the last pass
    store.end_pass(p1, T1, "succeeded", 1, {"added": 2})
    p2 = store.start_pass(T1, False)
    store.end_pass(p2, T2, "failed", 1, {}, "boom")
    last = store.last_pass()
    assert last is not None
    assert (last["pass_id"], last["outcome"], last["error"], last["full"]) == (p2, "failed",
                                                                               "boom", 0)
    store.ledger_entry(p1, "repository", started=T0, ended=T1, outcome="succeeded",
                       counts={"read": 1}, floor=None, gaps=[], partial=False, note=None)
    store.ledger_entry(p2, "repository", started=T1, ended=T2, outcome="failed", counts={},
                       floor=None, gaps=[], partial=False, note="boom")
    assert [r["outcome"] for r in store.ledger_for(p1)] == ["succeeded"]
    last_ledger = store.last_ledger("repository")
    assert last_ledger is not None and last_ledger["note"] == "boom"
    assert store.last_ledger("nothing") is None


def test_counts(store: Store) -> None:
    store.upsert_artifacts([
        art("STORY-1", status="ready"), art("STORY-2", status="ready"),
        art("STORY-3", status="done", metadata={"withheld": True}),
        art("DEC-1", type="decision", status="accepted"),
        art("CONV-1", type="conversation"),
        art("STORY-4", deleted=True),
        art("c0ffee", type="commit", source="commits/x"),
    ], T0)
    store.state_links([link("STORY-1", "DEC-1"), link("STORY-2", "DEC-1")], T0)
    store.retire_links([("STORY-2", "DEC-1", "references", "explicit-ref")], T1)
    assert store.counts() == {
        "artifacts": 6,
        "by_kind": {"work-item": 3, "doc": 2, "commit": 1},
        "by_type": {"story": 3, "decision": 1, "conversation": 1, "commit": 1},
        "by_status": {"story": {"ready": 2, "done": 1}, "decision": {"accepted": 1}},
        "deleted": 1,
        "withheld": 1,
        "links": 1,
    }


def test_snapshot_leaves_out_ingest_clocks(store: Store, tmp_path: Path) -> None:
    def fill(s: Store, at: str) -> None:
        s.upsert_artifacts([art("STORY-1", body="x"), art("DEC-1", type="decision")], at)
        s.state_links([link("STORY-1", "DEC-1")], at)
        s.replace_statements([], [("DEC-1#statement", "DEC-1", "text", None)])
        s.add_history("repository", [HistoryEntry("p", T0, "added", "r")])

    fill(store, T0)
    other = Store(tmp_path / "other.db")
    try:
        fill(other, T2)
        assert store.snapshot() == other.snapshot()
        snap = store.snapshot()
        assert [a["id"] for a in snap["artifacts"]] == ["DEC-1", "STORY-1"]
        assert "ingested_at" not in snap["artifacts"][0]
        assert set(snap["links"][0]) == {"src", "dst", "relation", "method", "dst_key", "detail",
                                         "stated"}
        assert len(snap["statements"]) == 1 and len(snap["history"]) == 1
        other.upsert_artifacts([art("STORY-1", body="changed")], T2)
        assert store.snapshot() != other.snapshot()
    finally:
        other.close()


def test_snapshot_leaves_out_retired_links(store: Store) -> None:
    store.state_links([link("A-1", "B-1")], T0)
    store.retire_links([("A-1", "B-1", "references", "explicit-ref")], T1)
    assert store.snapshot()["links"] == []


def test_a_schema_2_store_gains_problem_severities_and_its_next_pass_is_full(
        tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    s = Store(path)
    s.set_meta("config_fingerprint", "abc")
    s.conn.execute("ALTER TABLE problems DROP COLUMN severity")
    s.set_meta("schema_version", "2")
    s.close()
    s = Store(path)
    try:
        assert s.schema_version() == SCHEMA_VERSION
        assert "severity" in {r[1] for r in s.conn.execute("PRAGMA table_info(problems)")}
        assert s.get_meta("config_fingerprint") is None
    finally:
        s.close()


def test_store_is_a_context_manager_that_closes_its_connection(tmp_path: Path) -> None:
    with Store(tmp_path / "context.db") as store:
        store.conn.execute("SELECT 1")
    with pytest.raises(sqlite3.ProgrammingError):
        store.conn.execute("SELECT 1")


# -- the pass's index ---------------------------------------------------------------------------


def _plans_of(store: Store, call: object) -> list[str]:
    """The query plans of the SELECTs one store call runs (captured as SQLite traces them)."""
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    try:
        call()  # type: ignore[operator]
    finally:
        store.conn.set_trace_callback(None)
    plans: list[str] = []
    for sql in (s for s in seen if s.lstrip().upper().startswith("SELECT")):
        plans.extend(str(row[3]) for row in store.conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
    return plans


def test_what_a_pass_knows_of_a_source_is_read_from_its_index_alone(store: Store) -> None:
    store.upsert_artifacts([art("STORY-0001", source_path="backlog/a.md", blob="b1")], T0)
    assert store.known("repository")["STORY-0001"] == KnownArtifact(
        "STORY-0001", "backlog/a.md", "b1", False, None, None)
    plans = _plans_of(store, lambda: store.known("repository"))
    assert plans and all("COVERING INDEX artifacts_source_known" in p for p in plans)


def test_ids_at_paths_look_each_path_up_instead_of_scanning_the_source(store: Store) -> None:
    """Regression: re-dating by path scanned every row of the source per batch of paths
    (quadratic: 136 s of a 100,000-file pass)."""
    store.upsert_artifacts([art("STORY-0001", source_path="backlog/a.md")], T0)
    plans = _plans_of(store, lambda: store.ids_at_paths("repository", ["backlog/a.md"]))
    assert plans and all("artifacts_source_known (source=? AND source_path=?)" in p
                         for p in plans)


def test_a_store_made_before_the_pass_index_gains_it_when_opened_for_writing(
        tmp_path: Path) -> None:
    path = tmp_path / "context.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX artifacts_source_known")
    conn.commit()
    conn.close()
    with Store(path) as s:
        names = {r[0] for r in s.conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "artifacts_source_known" in names


def test_detail_json_is_sorted_json_and_empty_braces_without_detail() -> None:
    """A link's detail is stored as sorted JSON; no detail at all is '{}' without building it."""
    import json

    from revetly_core.store.rows import detail_json

    assert detail_json(()) == "{}" == json.dumps({}, sort_keys=True)
    detail = (("in", "subject"), ("criteria", ("a", "b")))
    assert detail_json(detail) == json.dumps(dict(detail), sort_keys=True)
    assert detail_json(detail) == '{"criteria": ["a", "b"], "in": "subject"}'


def test_all_artifacts_is_artifacts_by_ids_of_every_id(store: Store) -> None:
    """The one scan a full pass re-links from yields what the id batches would, in id order."""
    ids = [f"STORY-{n:04d}" for n in (7, 1, 1200, 30)] + ["BUG-0002", "EPIC-0010"]
    store.upsert_artifacts([art(i, title=f"title {i}") for i in ids], T0)
    scanned = list(store.all_artifacts())
    assert [a.id for a in scanned] == sorted(ids)
    assert scanned == list(store.artifacts_by_ids(sorted(ids)))


def test_a_plain_row_reads_back_as_the_named_row_does(store: Store) -> None:
    a = art(metadata={"withheld": True, "k": [1]}, deleted=True, deleted_at=T1,
            deleted_clock="found", deleted_note="gone", provenance="mirror",
            criteria=["one"], criteria_unparsed=True, aliases=["x"])
    store.upsert_artifacts([a], T0)
    plain = store.conn.execute(f"SELECT {', '.join(READ_COLUMNS)} FROM artifacts").fetchone()
    named = store.conn.execute("SELECT * FROM artifacts").fetchone()
    assert tuple_to_artifact(tuple(plain)) == row_to_artifact(named) == a


def test_index_documents_carry_each_artifacts_labels(store: Store) -> None:
    store.upsert_artifacts([art("STORY-0001", metadata={"labels": ["mqtt", "heap"]}),
                            art("STORY-0002", metadata={"labels": "not a list"}),
                            art("STORY-0003")], T0)
    docs = {a.id: a.metadata for a in store.index_documents()}
    assert docs == {"STORY-0001": {"labels": ["mqtt", "heap"]}, "STORY-0002": {"labels": []},
                    "STORY-0003": {}}
