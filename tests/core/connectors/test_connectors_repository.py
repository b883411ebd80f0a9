"""The repository connector: instance files parsed into artifacts, dated by their git history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import pytest
from revetly_core.config import load_config, parse_config
from revetly_core.connectors.base import FileProblem, KnownArtifact, SourceBatch
from revetly_core.connectors.repository import (
    SOURCE_ID,
    RepositoryConnector,
    parse_artifact_file,
)
from revetly_core.model import Artifact

from tests.core.gitrepo import GitRepo, Instance, iso, md

CONFIG = parse_config({"instance": {"name": "acme"}})
NOW = "2030-01-01T00:00:00+00:00"

STORY = md(
    "STORY-0001", "Export invoices as CSV", "story",
    body="# Export\n\nFinance wants CSV.\n\n## Acceptance criteria\n\n- One row per invoice\n"
         "- Two decimals\n",
    status="ready", parent="FEAT-0001", owner="dana", cites=["DEC-0001"], created="2024-01-02",
    priority="high", aliases=["CSV export"],
)


def parse(data: bytes | str, path: str = "backlog/STORY-0001.md", config: Any = CONFIG,
          ) -> Artifact | FileProblem:
    raw = data.encode() if isinstance(data, str) else data
    return parse_artifact_file(path, raw, config=config, project="acme", blob="b" * 40)


def problem_of(data: bytes | str, **kw: Any) -> FileProblem:
    result = parse(data, **kw)
    assert isinstance(result, FileProblem), result
    assert result.source == SOURCE_ID
    return result


# -- parse_artifact_file ------------------------------------------------------------------------


def test_a_good_file_becomes_an_artifact() -> None:
    a = parse(STORY)
    assert isinstance(a, Artifact)
    assert (a.id, a.type, a.title, a.status) == ("STORY-0001", "story", "Export invoices as CSV",
                                                 "ready")
    assert (a.parent, a.owner, a.project) == ("FEAT-0001", "dana", "acme")
    assert a.source == "repository"
    assert a.source_path == a.source_uri == "backlog/STORY-0001.md"
    assert a.blob == "b" * 40
    assert a.criteria == ["One row per invoice", "Two decimals"]
    assert a.criteria_unparsed is False
    assert a.body.startswith("\n# Export")
    assert a.created_at == "2024-01-02"
    assert a.aliases == ["CSV export"]
    assert a.kind == "work-item"
    assert a.metadata["priority"] == "high"
    assert a.metadata["declared_created"] == "2024-01-02"
    assert a.metadata["declared"] == {"parent": "FEAT-0001", "cites": ["DEC-0001"]}
    assert not a.deleted


def test_declared_fields_and_record_metadata() -> None:
    text = md("DEL-0001", "Delivered export", "delivery", delivers="STORY-0001",
              implemented_by=["ABC123"], delivered_by="dana", withheld=True,
              verdicts=[{"criterion": 1, "verdict": "met"}], updated="2024-02-03",
              revises=["STORY-0002", {"id": "STORY-0003", "criteria": [2]}])
    a = parse(text, path="records/DEL-0001.md")
    assert isinstance(a, Artifact)
    assert a.metadata["declared"] == {
        "delivers": "STORY-0001", "implemented_by": ["ABC123"],
        "revises": [{"id": "STORY-0002", "criteria": []}, {"id": "STORY-0003", "criteria": [2]}],
    }
    assert a.metadata["delivered_by"] == "dana"
    assert a.metadata["withheld"] is True
    assert a.metadata["verdicts"] == [{"criterion": 1, "verdict": "met"}]
    assert a.metadata["declared_updated"] == "2024-02-03"
    assert a.source_updated_at == "2024-02-03"


def test_a_criteria_heading_without_items_is_flagged_unparsed() -> None:
    a = parse(md("STORY-0001", "Export", body="## Acceptance criteria\n\nTBD\n"))
    assert isinstance(a, Artifact)
    assert a.criteria == [] and a.criteria_unparsed is True


def test_an_oversized_file_is_a_problem() -> None:
    config = parse_config({"connectors": {"repository": {"max_file_bytes": 100}}})
    p = problem_of(STORY, config=config)
    assert p.code == "too-large"
    assert "100-byte limit" in p.detail
    assert p.path == "backlog/STORY-0001.md"
    assert p.payload() == {"source": "repository", "path": p.path, "code": "too-large",
                           "detail": p.detail}


def test_a_file_exactly_at_the_limit_is_read() -> None:
    data = STORY.encode()
    config = parse_config({"connectors": {"repository": {"max_file_bytes": len(data)}}})
    assert isinstance(parse(data, config=config), Artifact)


def test_a_binary_file_is_a_problem() -> None:
    assert problem_of(STORY.encode() + b"\x00\x01").code == "binary"


def test_a_non_utf8_file_is_a_problem_naming_the_byte() -> None:
    data = STORY.encode().replace(b"Finance", b"Financ\xe9")
    p = problem_of(data)
    assert p.code == "not-utf8"
    at = data.index(b"\xe9")
    assert f"byte {at}" in p.detail


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# no frontmatter\n", "no-frontmatter"),
        ("---\nid: STORY-0001\n", "no-frontmatter"),
        ("---\nid: STORY-0001\ntitle: a: b\n---\n", "bad-yaml"),
        ("---\n- a list\n---\n", "bad-yaml"),
        ("---\ntitle: No id\ntype: story\n---\n", "schema"),
        ("---\nid: STORY-0001\ntitle: T\ntype: story\nstatus: accepted\n---\n", "schema"),
        ("---\nid: SAGA-0001\ntitle: T\ntype: story\n---\n", "unknown-family"),
        ("---\nid: STORY1\ntitle: T\ntype: story\n---\n", "unknown-family"),
        ("---\nid: ' STORY-1'\ntitle: T\ntype: story\n---\n", "unknown-family"),
    ],
)
def test_schema_problems_are_named(text: str, code: str) -> None:
    p = problem_of(text)
    assert p.code == code
    assert p.detail


def test_a_missing_id_is_named() -> None:
    assert problem_of("---\ntitle: No id\ntype: story\n---\n").detail == "id is required"


@pytest.mark.parametrize(("written", "stored"), [("story-7", "STORY-7"), ("Story_0007", "STORY-0007"),
                                                 ("STORY 12", "STORY-12"), ("DEC-0001", "DEC-0001")])
def test_ids_are_stored_in_canonical_spelling_keeping_their_padding(written: str, stored: str
                                                                     ) -> None:
    a = parse(md(written, "Any title"))
    assert isinstance(a, Artifact) and a.id == stored


def test_a_file_under_a_project_folder_gets_the_project_passed_in() -> None:
    config = parse_config({"projects": {"core": {}, "web": {"paths": ["backlog/web"]}}})
    connector = RepositoryConnector(Path("/nowhere"), config)
    assert connector.project == "core"
    assert config.project_for_path("backlog/web/STORY-1.md") == "web"


# -- RepositoryConnector.read on real repositories --------------------------------------------


def connector(inst: Instance) -> RepositoryConnector:
    return RepositoryConnector(inst.root, load_config(inst.root))


def read(inst: Instance, known: dict[str, KnownArtifact] | None = None,
         cursor: dict[str, Any] | None = None, full: bool = True) -> SourceBatch:
    return connector(inst).read(known or {}, cursor or {}, full=full, now=NOW)


def known_of(batch: SourceBatch) -> dict[str, KnownArtifact]:
    return {a.id: KnownArtifact(a.id, a.source_path, a.blob, a.deleted, a.deleted_at,
                                a.deleted_clock) for a in batch.upserts}


def test_reads_markdown_in_the_declared_folders_only(instance: Instance) -> None:
    g = instance.git
    g.write("backlog/STORY-0001.md", md("STORY-0001", "One"))
    g.write("backlog/deep/er/TASK-0001.md", md("TASK-0001", "Deep task", "task"))
    g.write("notes/DEC-0001.md", md("DEC-0001", "A decision", "decision"))
    g.write("records/DEL-0001.md", md("DEL-0001", "Delivered", "delivery"))
    g.write("backlog/STORY-0002.txt", md("STORY-0002", "Not markdown"))
    g.write("docs/STORY-0003.md", md("STORY-0003", "Not a declared folder"))
    g.write("backlogs/STORY-0004.md", md("STORY-0004", "Similar folder name"))
    g.write("README.md", "# readme\n")
    g.commit("files")
    batch = read(instance)
    assert sorted(a.id for a in batch.upserts) == ["DEC-0001", "DEL-0001", "STORY-0001",
                                                   "TASK-0001"]
    assert batch.problems == []
    assert batch.read_count == 4
    assert batch.complete
    assert batch.cursor["head"] == g.head
    assert sorted(connector(instance).list_files()) == [
        "backlog/STORY-0001.md", "backlog/deep/er/TASK-0001.md", "notes/DEC-0001.md",
        "records/DEL-0001.md"]


def test_blobs_are_git_blob_ids(instance: Instance) -> None:
    instance.git.write_and_commit({"backlog/STORY-0001.md": STORY})
    (a,) = read(instance).upserts
    assert a.blob == str(pygit2.hash(STORY.encode()))


def test_uncommitted_and_untracked_files_are_read_from_the_work_tree(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "Committed title")})
    g.write("backlog/STORY-0001.md", md("STORY-0001", "Edited in the work tree"))
    g.write("backlog/STORY-0002.md", md("STORY-0002", "Untracked"))
    titles = {a.id: a.title for a in read(instance).upserts}
    assert titles == {"STORY-0001": "Edited in the work tree", "STORY-0002": "Untracked"}


def test_git_ignored_files_are_not_read(instance: Instance) -> None:
    g = instance.git
    g.write(".gitignore", ".revetly/\nbacklog/drafts/\n")
    g.write("backlog/drafts/STORY-0009.md", md("STORY-0009", "Ignored draft"))
    g.write("backlog/STORY-0001.md", md("STORY-0001", "Kept"))
    assert [a.id for a in read(instance).upserts] == ["STORY-0001"]


def test_an_unborn_repository_reads_its_work_tree(tmp_path: Path) -> None:
    inst = Instance(tmp_path / "fresh", commit_config=False)
    inst.git.write("backlog/STORY-0001.md", md("STORY-0001", "Before any commit"))
    batch = read(inst)
    assert [a.id for a in batch.upserts] == ["STORY-0001"]
    assert batch.history == []
    assert batch.cursor["head"] is None


def test_a_folder_that_is_not_a_repository_raises(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="not a git repository"):
        RepositoryConnector(tmp_path, CONFIG).read({}, {}, full=True, now=NOW)


def test_history_records_each_commit_touching_a_file(instance: Instance) -> None:
    g = instance.git
    c1 = g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "v1")}, "Add story",
                            author=("Ann Lee", "ann@example.com"))
    c2 = g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "v2")}, "Edit story\n\nbody")
    g.write_and_commit({"other/file.md": "x"}, "Unrelated")
    c4 = g.remove_and_commit(["backlog/STORY-0001.md"], "Drop story")
    hist = read(instance).history
    assert [(h.artifact_id, h.change, h.revision, h.summary) for h in hist] == [
        ("backlog/STORY-0001.md", "added", c1, "Add story"),
        ("backlog/STORY-0001.md", "modified", c2, "Edit story"),
        ("backlog/STORY-0001.md", "deleted", c4, "Drop story"),
    ]
    assert hist[0].author == "Ann Lee"
    assert hist[0].at == iso(g.commit_time(c1))


def test_incremental_history_starts_after_the_cursor_head(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "v1")})
    first = read(instance)
    c2 = g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "v2")})
    second = read(instance, known_of(first), first.cursor, full=False)
    assert [h.revision for h in second.history] == [c2]
    assert [a.title for a in second.upserts] == ["v2"]
    assert second.cursor["head"] == c2


def test_unchanged_files_are_not_re_read_incrementally(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "One"),
                        "backlog/STORY-0002.md": md("STORY-0002", "Two")})
    first = read(instance)
    g.write_and_commit({"backlog/STORY-0002.md": md("STORY-0002", "Two, edited")})
    second = read(instance, known_of(first), first.cursor, full=False)
    assert [a.id for a in second.upserts] == ["STORY-0002"]
    assert second.read_count == 1
    assert second.removals == []
    assert second.cleared_paths == {"backlog/STORY-0002.md"}


def test_a_committed_deletion_is_a_deleted_artifact_dated_by_the_commit(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "Doomed")})
    first = read(instance)
    sha = g.remove_and_commit(["backlog/STORY-0001.md"], "Remove it")
    second = read(instance, known_of(first), first.cursor, full=False)
    # the store holds the artifact: it is marked deleted, the deleted blob is never re-parsed
    assert second.upserts == []
    (r,) = second.removals
    assert (r.artifact_id, r.clock) == ("STORY-0001", "source-declared")
    assert r.deleted_at == iso(g.commit_time(sha))
    assert r.note == f"removed by commit {sha[:12]}"


def test_a_full_read_finds_deletions_anywhere_in_history(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "Doomed"),
                        "backlog/STORY-0002.md": md("STORY-0002", "Back again")})
    sha = g.remove_and_commit(["backlog/STORY-0001.md", "backlog/STORY-0002.md"])
    g.write_and_commit({"backlog/STORY-0002.md": md("STORY-0002", "Back again")})
    by_id = {a.id: a for a in read(instance).upserts}
    assert by_id["STORY-0001"].deleted
    assert by_id["STORY-0001"].deleted_at == iso(g.commit_time(sha))
    assert not by_id["STORY-0002"].deleted


def test_a_deleted_file_that_never_parsed_leaves_nothing(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/bad.md": "no frontmatter\n"})
    g.remove_and_commit(["backlog/bad.md"])
    batch = read(instance)
    assert batch.upserts == [] and batch.problems == []


def test_a_file_gone_from_the_work_tree_is_a_found_removal(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/STORY-0001.md": md("STORY-0001", "Here")})
    first = read(instance)
    g.unlink("backlog/STORY-0001.md")
    second = read(instance, known_of(first), first.cursor, full=False)
    assert second.upserts == []
    (r,) = second.removals
    assert (r.artifact_id, r.clock, r.deleted_at) == ("STORY-0001", "found", NOW)


def test_two_spellings_of_one_id_are_duplicates(instance: Instance) -> None:
    instance.git.write_and_commit({"backlog/x-long.md": md("STORY-0003", "Padded"),
                                   "backlog/y-short.md": md("story-3", "Unpadded")})
    batch = read(instance)
    assert [(a.id, a.source_path) for a in batch.upserts] == [("STORY-0003", "backlog/x-long.md")]
    assert [(p.path, p.code) for p in batch.problems] == [("backlog/y-short.md", "duplicate-id")]


def test_duplicate_ids_keep_the_first_path_and_name_the_other(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/a.md": md("STORY-0001", "First"),
                        "backlog/b.md": md("STORY-0001", "Second")})
    batch = read(instance)
    assert [(a.id, a.source_path) for a in batch.upserts] == [("STORY-0001", "backlog/a.md")]
    (p,) = batch.problems
    assert (p.path, p.code) == ("backlog/b.md", "duplicate-id")
    assert "backlog/a.md" in p.detail


def test_a_new_file_sorting_first_takes_the_id_over(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/m.md": md("STORY-0001", "Middle")})
    first = read(instance)
    g.write_and_commit({"backlog/a.md": md("STORY-0001", "Earlier path")})
    second = read(instance, known_of(first), first.cursor, full=False)
    assert [(a.id, a.source_path) for a in second.upserts] == [("STORY-0001", "backlog/a.md")]
    assert [(p.path, p.code) for p in second.problems] == [("backlog/m.md", "duplicate-id")]


def test_problems_are_named_and_other_files_still_land(instance: Instance) -> None:
    g = instance.git
    g.write("backlog/STORY-0001.md", md("STORY-0001", "Good"))
    g.write("backlog/bad-yaml.md", "---\nid: STORY-0002\ntitle: [oops\n---\n")
    g.write("backlog/no-id.md", "---\ntitle: T\ntype: story\n---\n")
    g.write("backlog/latin1.md", b"---\nid: STORY-0003\ntitle: caf\xe9\ntype: story\n---\n")
    g.write("backlog/binary.md", b"\x00\x01\x02")
    g.commit()
    batch = read(instance)
    assert [a.id for a in batch.upserts] == ["STORY-0001"]
    assert {p.path: p.code for p in batch.problems} == {
        "backlog/bad-yaml.md": "bad-yaml", "backlog/no-id.md": "schema",
        "backlog/latin1.md": "not-utf8", "backlog/binary.md": "binary"}
    assert set(batch.cursor["problems"]) == {p.path for p in batch.problems}


def test_an_unchanged_problem_file_is_not_re_read(instance: Instance) -> None:
    g = instance.git
    g.write_and_commit({"backlog/bad.md": "no frontmatter\n"})
    first = read(instance)
    second = read(instance, {}, first.cursor, full=False)
    assert second.problems == [] and second.read_count == 0
    assert second.cursor["problems"] == first.cursor["problems"]
    assert "backlog/bad.md" not in second.cleared_paths


def test_read_file_parses_one_listed_file(instance: Instance) -> None:
    instance.git.write_and_commit({"backlog/STORY-0001.md": STORY})
    c = connector(instance)
    files = c.list_files()
    a = c.read_file("backlog/STORY-0001.md", files["backlog/STORY-0001.md"])
    assert isinstance(a, Artifact) and a.id == "STORY-0001"


def test_declared_repository_paths_replace_the_defaults(tmp_path: Path) -> None:
    text = '[instance]\nname = "acme"\n[connectors.repository]\npaths = ["work/items"]\n'
    inst = Instance(tmp_path / "i", config_text=text)
    inst.git.write_and_commit({"work/items/STORY-0001.md": md("STORY-0001", "In"),
                               "backlog/STORY-0002.md": md("STORY-0002", "Out")})
    assert [a.id for a in read(inst).upserts] == ["STORY-0001"]


def test_gitrepo_helper_is_a_real_repository(git_repo: GitRepo) -> None:
    sha = git_repo.write_and_commit({"a.txt": "x"}, "first", when=1_700_000_000)
    repo = pygit2.Repository(str(git_repo.root))
    assert str(repo.head.target) == sha
    assert repo[sha].author.time == 1_700_000_000
    assert repo[sha].committer.email == "dana@example.com"
