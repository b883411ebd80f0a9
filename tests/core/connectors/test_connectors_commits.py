"""The commits connector: a code repository's commits as artifacts, and the ids they name."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pygit2
import pytest
from revetly_core.config import CommitsConnector as CommitsSettings
from revetly_core.connectors.base import KnownArtifact, SourceBatch
from revetly_core.connectors.commits import (
    MAX_FILES_PER_COMMIT,
    CommitsConnector,
    commits_source_id,
)
from revetly_core.connectors.gittime import commit_subject_body, commit_time

from tests.core.gitrepo import GitRepo, Instance, iso, md

NOW = "2030-01-01T00:00:00+00:00"


def ts(day: str, hms: str = "12:00:00") -> int:
    return int(dt.datetime.fromisoformat(f"{day}T{hms}+00:00").timestamp())


def connector(root: Path, path: str, since: str | None = None, project: str | None = None,
              name: str = "code") -> CommitsConnector:
    settings = CommitsSettings(name=name, path=path, since=since, project=project)  # type: ignore[arg-type]
    return CommitsConnector(root, settings, "acme")


def read(c: CommitsConnector, known: dict[str, KnownArtifact] | None = None,
         cursor: dict[str, Any] | None = None, full: bool = True) -> SourceBatch:
    return c.read(known or {}, cursor or {}, full=full, now=NOW)


def known_of(batch: SourceBatch) -> dict[str, KnownArtifact]:
    return {a.id: KnownArtifact(a.id, a.source_path, a.blob, False, None, None)
            for a in batch.upserts}


@pytest.fixture()
def code(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "code")


# -- gittime ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "subject", "body"),
    [
        ("Fix login\n", "Fix login", ""),
        ("Fix login\n\nBecause STORY-1.\nMore.\n", "Fix login", "Because STORY-1.\nMore."),
        ("\n\n  Subject with spaces  \nbody directly\n", "Subject with spaces", "body directly"),
        ("", "", ""),
    ],
)
def test_commit_subject_body(message: str, subject: str, body: str) -> None:
    assert commit_subject_body(message) == (subject, body)


def test_commit_time_is_the_author_time_in_utc(code: GitRepo) -> None:
    sha = code.write_and_commit({"a.py": "x"}, when=ts("2024-03-04", "05:06:07"))
    assert commit_time(code.repo[sha]) == "2024-03-04T05:06:07+00:00"


def test_source_id() -> None:
    assert commits_source_id("api") == "commits/api"


# -- reading ---------------------------------------------------------------------------------


def test_every_commit_becomes_an_artifact(tmp_path: Path, code: GitRepo) -> None:
    c1 = code.write_and_commit({"src/a.py": "a = 1\n", "README.md": "r"}, "Initial commit",
                               when=ts("2024-01-10"), author=("Ann Lee", "ann@example.com"))
    c2 = code.write_and_commit({"src/a.py": "a = 2\n"}, "Fix STORY-0001 rounding\n\nDetails.\n",
                               when=ts("2024-01-11"))
    c = connector(tmp_path, "code")
    assert c.source_id == "commits/code" and c.project == "acme"
    batch = read(c)
    by_id = {a.id: a for a in batch.upserts}
    assert set(by_id) == {c1, c2}
    a = by_id[c2]
    assert (a.type, a.kind, a.title, a.body) == ("commit", "commit", "Fix STORY-0001 rounding",
                                                 "Details.")
    assert a.source == "commits/code" and a.project == "acme"
    assert a.source_path == f"code@{c2[:12]}" and a.source_uri == f"code@{c2}"
    assert a.blob == c2
    assert a.created_at == a.source_updated_at == iso(ts("2024-01-11"))
    assert a.metadata["files"] == ["src/a.py"]
    assert a.metadata["repository"] == "code"
    assert by_id[c1].owner == by_id[c1].metadata["author"] == "Ann Lee"
    assert by_id[c1].metadata["author_email"] == "ann@example.com"
    assert by_id[c1].metadata["files"] == ["README.md", "src/a.py"]
    assert "merge" not in a.metadata
    assert batch.read_count == 2
    assert batch.cursor == {"head": c2, "since": None}
    assert batch.complete and batch.removals == []


def test_a_declared_project_overrides_the_default(tmp_path: Path, code: GitRepo) -> None:
    code.write_and_commit({"a": "1"})
    c = connector(tmp_path, "code", project="web")
    assert c.project == "web"
    assert {a.project for a in read(c).upserts} == {"web"}


def test_relative_paths_resolve_from_the_instance_root(tmp_path: Path, code: GitRepo) -> None:
    (tmp_path / "inst").mkdir()
    code.write_and_commit({"a": "1"})
    c = connector(tmp_path / "inst", "../code")
    assert c.path == code.root.resolve()
    assert len(read(c).upserts) == 1


def test_deleted_and_renamed_files_are_listed(tmp_path: Path, code: GitRepo) -> None:
    code.write_and_commit({"old.py": "x = 1\n", "keep.py": "k\n"})
    code.remove("old.py")
    code.write("new.py", "x = 1\n")
    sha = code.commit("Rename")
    (a,) = [a for a in read(connector(tmp_path, "code")).upserts if a.id == sha]
    assert a.metadata["files"] == ["new.py", "old.py"]


def test_a_huge_commit_keeps_the_first_files_and_counts_the_rest(
    tmp_path: Path, code: GitRepo
) -> None:
    n = MAX_FILES_PER_COMMIT + 7
    code.write_and_commit({f"f{i:04d}.txt": str(i) for i in range(n)}, "Vendor everything")
    (a,) = read(connector(tmp_path, "code")).upserts
    assert len(a.metadata["files"]) == MAX_FILES_PER_COMMIT
    assert a.metadata["files"][0] == "f0000.txt"
    assert a.metadata["files_more"] == 7


def test_a_merge_commit_is_flagged(tmp_path: Path, code: GitRepo) -> None:
    base = code.write_and_commit({"a": "1"}, when=ts("2024-01-01"))
    left = code.write_and_commit({"b": "2"}, when=ts("2024-01-02"))
    repo = code.repo
    sig = pygit2.Signature("Bo", "bo@example.com", ts("2024-01-03"), 0)
    side_tree = repo.TreeBuilder(repo[base].tree)
    side_tree.insert("c", repo.create_blob(b"3"), pygit2.enums.FileMode.BLOB)
    right = repo.create_commit(None, sig, sig, "Side", side_tree.write(), [pygit2.Oid(hex=base)])
    merge_tree = repo.TreeBuilder(repo[left].tree)
    merge_tree.insert("c", repo.create_blob(b"3"), pygit2.enums.FileMode.BLOB)
    merge = repo.create_commit("HEAD", sig, sig, "Merge side", merge_tree.write(),
                               [pygit2.Oid(hex=left), right])
    by_id = {a.id: a for a in read(connector(tmp_path, "code")).upserts}
    assert set(by_id) == {base, left, str(right), str(merge)}
    assert by_id[str(merge)].metadata["merge"] is True
    assert "merge" not in by_id[left].metadata


def test_an_unborn_repository_reads_nothing(tmp_path: Path, code: GitRepo) -> None:
    batch = read(connector(tmp_path, "code"))
    assert batch.upserts == [] and batch.cursor == {"head": None}


def test_a_missing_folder_raises(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="not a readable git repository"):
        read(connector(tmp_path, "nowhere"))


def test_a_folder_that_is_not_a_repository_raises(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(RuntimeError, match="not a readable git repository"):
        read(connector(tmp_path, "plain"))


# -- the history floor -----------------------------------------------------------------------


def test_since_excludes_commits_authored_before_its_midnight(tmp_path: Path, code: GitRepo) -> None:
    old = code.write_and_commit({"a": "1"}, when=ts("2023-12-31", "23:59:59"))
    edge = code.write_and_commit({"a": "2"}, when=ts("2024-01-01", "00:00:00"))
    new = code.write_and_commit({"a": "3"}, when=ts("2024-02-01"))
    batch = read(connector(tmp_path, "code", since="2024-01-01"))
    assert {a.id for a in batch.upserts} == {edge, new}
    assert old not in {a.id for a in batch.upserts}
    assert batch.floor == "2024-01-01"
    assert batch.cursor == {"head": new, "since": "2024-01-01"}


def test_known_commits_below_a_raised_floor_are_not_removed(tmp_path: Path, code: GitRepo) -> None:
    old = code.write_and_commit({"a": "1"}, when=ts("2023-06-01"))
    new = code.write_and_commit({"a": "2"}, when=ts("2024-06-01"))
    first = read(connector(tmp_path, "code"))
    assert {a.id for a in first.upserts} == {old, new}
    raised = read(connector(tmp_path, "code", since="2024-01-01"), known_of(first), first.cursor,
                  full=False)
    assert {a.id for a in raised.upserts} == {new}  # the floor changed: everything re-read
    assert raised.complete
    assert raised.removals == []


# -- incremental reads -----------------------------------------------------------------------


def test_an_incremental_read_takes_only_new_commits(tmp_path: Path, code: GitRepo) -> None:
    code.write_and_commit({"a": "1"})
    code.write_and_commit({"a": "2"})
    c = connector(tmp_path, "code")
    first = read(c)
    c3 = code.write_and_commit({"a": "3"})
    c4 = code.write_and_commit({"a": "4"})
    second = read(c, known_of(first), first.cursor, full=False)
    assert {a.id for a in second.upserts} == {c3, c4}
    assert second.read_count == 2
    assert not second.complete
    assert second.removals == []
    assert second.cursor["head"] == c4
    third = read(c, {**known_of(first), **known_of(second)}, second.cursor, full=False)
    assert third.upserts == [] and third.removals == []


def test_a_full_read_ignores_the_cursor(tmp_path: Path, code: GitRepo) -> None:
    code.write_and_commit({"a": "1"})
    c = connector(tmp_path, "code")
    first = read(c)
    again = read(c, known_of(first), first.cursor, full=True)
    assert {a.id for a in again.upserts} == {a.id for a in first.upserts}
    assert again.complete


def test_rewritten_history_is_re_read_and_lost_commits_are_found_removed(
    tmp_path: Path, code: GitRepo
) -> None:
    c1 = code.write_and_commit({"a": "1"})
    c2 = code.write_and_commit({"a": "2"}, "Doomed commit")
    c = connector(tmp_path, "code")
    first = read(c)
    code.repo.reset(pygit2.Oid(hex=c1), pygit2.enums.ResetMode.HARD)
    c3 = code.write_and_commit({"a": "3"}, "Replacement")
    second = read(c, known_of(first), first.cursor, full=False)
    assert {a.id for a in second.upserts} == {c1, c3}
    assert second.complete
    assert [(r.artifact_id, r.clock, r.deleted_at) for r in second.removals] == [(c2, "found", NOW)]


# -- through the read pass ---------------------------------------------------------------------


@pytest.fixture()
def linked(tmp_path: Path) -> tuple[Instance, GitRepo, dict[str, str]]:
    code = GitRepo(tmp_path / "code")
    shas = {
        "subject": code.write_and_commit({"a.py": "1"}, "Fix STORY-0001 totals\n\nSee also STORY-0001."),
        "body": code.write_and_commit({"a.py": "2"}, "Tidy\n\nFor story-2 and STORY_0003; not story 4."),
        "range": code.write_and_commit({"a.py": "3"}, "Batch STORY-0004..0006"),
        "none": code.write_and_commit({"a.py": "4"}, "Bump deps"),
        "long": code.write_and_commit({"a.py": "5"}, "Touch STORY-1..STORY-99"),
    }
    inst = Instance(tmp_path / "inst", commits=[("code", "../code")])
    files = {f"backlog/STORY-000{i}.md": md(f"STORY-000{i}", f"Story number {i}")
             for i in range(1, 7)}
    inst.git.write_and_commit(files)
    inst.sync()
    return inst, code, shas


def test_commit_links_record_where_the_id_was_named(
    linked: tuple[Instance, GitRepo, dict[str, str]]
) -> None:
    inst, _code, shas = linked

    def links_from(sha: str) -> dict[str, dict[str, Any]]:
        return {r["dst"]: r for r in inst.links("src=?", (sha,))}

    subject = links_from(shas["subject"])
    assert set(subject) == {"STORY-0001"}
    assert json.loads(subject["STORY-0001"]["detail"]) == {"in": "subject"}
    assert subject["STORY-0001"]["relation"] == "references"
    assert subject["STORY-0001"]["method"] == "explicit-ref"
    body = links_from(shas["body"])
    assert set(body) == {"STORY-0002", "STORY-0003"}  # lower case and padding resolved
    assert {json.loads(r["detail"])["in"] for r in body.values()} == {"body"}
    assert set(links_from(shas["range"])) == {"STORY-0004", "STORY-0005", "STORY-0006"}
    assert links_from(shas["none"]) == {}
    # a range wider than the limit counts as its two ends; STORY-99 is not held
    assert set(links_from(shas["long"])) == {"STORY-0001", "STORY-99"}


def test_commits_neither_mention_nor_are_mentioned_by_title(tmp_path: Path) -> None:
    code = GitRepo(tmp_path / "code")
    sha = code.write_and_commit({"a": "1"}, "Rework the checkout flow")
    inst = Instance(tmp_path / "inst", commits=[("code", "../code")])
    inst.git.write_and_commit({
        "backlog/STORY-0001.md": md("STORY-0001", "Checkout flow", body="x\n"),
        "notes/CONV-0001.md": md("CONV-0001", "Call", "conversation",
                                 body="We talked about rework the checkout flow today.\n"),
    })
    inst.sync()
    assert inst.links("src=?", (sha,)) == []
    assert inst.links("dst=?", (sha,)) == []
    assert [r["dst"] for r in inst.links("src='CONV-0001'")] == ["STORY-0001"]


def test_the_store_keeps_each_commit_time(tmp_path: Path) -> None:
    code = GitRepo(tmp_path / "code")
    sha = code.write_and_commit({"a": "1"}, "Fix STORY-0001", when=ts("2024-05-06", "07:08:09"))
    inst = Instance(tmp_path / "inst", commits=[("code", "../code")])
    inst.sync()
    stored = inst.get(sha)
    assert stored is not None
    assert stored.created_at == "2024-05-06T07:08:09+00:00"
    assert stored.source_updated_at == "2024-05-06T07:08:09+00:00"


def test_the_floor_is_reported_in_health_history(tmp_path: Path) -> None:
    code = GitRepo(tmp_path / "code")
    old = code.write_and_commit({"a": "1"}, when=ts("2023-05-01"))
    new = code.write_and_commit({"a": "2"}, when=ts("2024-05-01"))
    text = ('[instance]\nname = "acme"\n\n[[connectors.commits]]\nname = "code"\n'
            'path = "../code"\nsince = 2024-01-01\n')
    inst = Instance(tmp_path / "inst", config_text=text)
    inst.sync()
    assert inst.get(old) is None
    assert inst.get(new) is not None
    health = inst.health()
    assert health["history"]["floors"] == {"commits/code": "2024-01-01"}
    (src,) = [s for s in health["sources"] if s["source"] == "commits/code"]
    assert src["floor"] == "2024-01-01"


def test_incremental_sync_reads_only_new_commits(tmp_path: Path) -> None:
    code = GitRepo(tmp_path / "code")
    for i in range(3):
        code.write_and_commit({"a": str(i)})
    inst = Instance(tmp_path / "inst", commits=[("code", "../code")])
    first = inst.sync()
    assert _source(first, "commits/code")["counts"]["read"] == 3
    new = code.write_and_commit({"a": "new"}, "Fix STORY-0001")
    second = inst.sync()
    counts = _source(second, "commits/code")["counts"]
    assert (counts["read"], counts["added"], counts["updated"]) == (1, 1, 0)
    assert inst.get(new) is not None
    third = inst.sync()
    assert _source(third, "commits/code")["counts"]["read"] == 0
    assert third["corpus_revision"] == second["corpus_revision"]


def _source(payload: dict[str, Any], source: str) -> dict[str, Any]:
    (row,) = [s for s in payload["sources"] if s["source"] == source]
    return row


def _drop_object(code: GitRepo, oid: str) -> None:
    """Delete one loose object, as a snapshot that lacks it would."""
    (code.root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()


def test_a_commit_whose_tree_cannot_be_read_is_a_gap_and_the_read_goes_on(
    tmp_path: Path, code: GitRepo,
) -> None:
    old = code.write_and_commit({"src/a.py": "a = 1\n"}, "First", when=ts("2024-01-10"))
    mid = code.write_and_commit({"src/big.bin": "x" * 10}, "Second", when=ts("2024-01-11"))
    new = code.write_and_commit({"src/a.py": "a = 2\n"}, "Third", when=ts("2024-01-12"))
    _drop_object(code, str(code.repo[mid].tree_id))
    batch = read(connector(tmp_path, "code"))
    assert batch.partial is True
    assert any(g.startswith(mid) for g in batch.gaps)
    assert {a.id for a in batch.upserts} >= {old, new}
    files = {a.id: a.metadata for a in batch.upserts}
    assert "files_unreadable" in files.get(mid, {"files_unreadable": ""})


def test_note_gap_names_a_few_and_counts_the_rest() -> None:
    from revetly_core.connectors.commits import MAX_GAPS, note_gap

    batch = SourceBatch(source="commits/code")
    for n in range(MAX_GAPS + 5):
        note_gap(batch, f"{n:040d}", RuntimeError("unable to read"))
    assert batch.partial and len(batch.gaps) == MAX_GAPS + 1
    assert batch.gaps[-1] == "more commits could not be read"
