"""The history walk's file changes from `git log` when git is on PATH, libgit2 otherwise.

Each history a repository can have is built in a real repository (trees and commits made with
pygit2), and both answers must give the same entries: the folder sources' `GitFolder.history`,
the repository source's walk (its history and the deletions it dates), and the changes
themselves.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import stat
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from revetly_core.config import CommitsConnector as CommitsSettings
from revetly_core.config import parse_config
from revetly_core.connectors import history_log
from revetly_core.connectors.base import SourceBatch
from revetly_core.connectors.commits import CommitsConnector
from revetly_core.connectors.gitfolder import GitFolder
from revetly_core.connectors.history_log import (
    ADDED,
    DELETED,
    MODIFIED,
    FileChange,
    RawLogParser,
    changes_of,
    git_changes,
    hides_prior,
    libgit2_changes,
    run_git_log,
)
from revetly_core.connectors.repository import RepositoryConnector

from tests.core.gitrepo import BASE_TIME

BLOB, LINK, GITLINK = pygit2.enums.FileMode.BLOB, pygit2.enums.FileMode.LINK, pygit2.enums.FileMode.COMMIT
EXEC = pygit2.enums.FileMode.BLOB_EXECUTABLE
SOME_COMMIT = "1234567890abcdef1234567890abcdef12345678"
Files = dict[str, "bytes | tuple[int, bytes]"]


@pytest.fixture(autouse=True)
def git_for_every_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """git is asked for walks of any length here, so short histories compare it with libgit2."""
    monkeypatch.setattr(history_log, "GIT_LOG_MIN_COMMITS", 1)


def git_executable() -> str:
    """The git on PATH: these tests compare its answer with libgit2's, so it must be there."""
    found = shutil.which("git")
    assert found is not None, "these tests need git on PATH"
    return found


class History:
    """A real repository whose commits are made from whole trees, with any parents."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.repo = pygit2.init_repository(str(root), initial_head="main")
        self.clock = BASE_TIME

    def commit(self, files: Files, *, parents: list[str] | None = None, message: str = "change",
               author: str = "Dana Reyes", encoding: str | None = None) -> str:
        """A commit of exactly ``files`` (path -> bytes, or (mode, bytes)); the branch moves to it.
        ``parents`` default to the branch's tip."""
        if parents is None:
            parents = [] if self.repo.head_is_unborn else [str(self.repo.head.target)]
        self.clock += 3600
        sig = pygit2.Signature(author, "dana@example.com", self.clock, 60, encoding or "utf-8")
        args = [None, sig, sig, message, self._tree(files), [pygit2.Oid(hex=p) for p in parents]]
        oid = self.repo.create_commit(*args, *([encoding] if encoding else []))
        self.repo.references.create("refs/heads/main", oid, force=True)
        return str(oid)

    def _tree(self, files: Files) -> pygit2.Oid:
        here: dict[str, tuple[int, bytes]] = {}
        below: dict[str, Files] = defaultdict(dict)
        for path, spec in files.items():
            name, sep, rest = path.partition("/")
            if sep:
                below[name][rest] = spec
            else:
                here[name] = spec if isinstance(spec, tuple) else (BLOB, spec)
        builder = self.repo.TreeBuilder()
        for name, sub in below.items():
            builder.insert(name, self._tree(sub), pygit2.enums.FileMode.TREE)
        for name, (mode, data) in here.items():
            oid = pygit2.Oid(hex=data.decode()) if mode == GITLINK else self.repo.create_blob(data)
            builder.insert(name, oid, mode)
        return builder.write()

    @property
    def head(self) -> str:
        return str(self.repo.head.target)


def walk(repo: Any, prior: str | None = None) -> list[Any]:
    """The commits as the history walks list them."""
    head = str(repo.head.target)
    walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    hides_prior(repo, walker, head, prior)
    return list(walker)


def changes_both(root: Path, prior: str | None = None,
                 prefix: str = "") -> list[tuple[str, list[FileChange]]]:
    """Each commit's changes by git and by libgit2, required equal and git required to answer."""
    repo = pygit2.Repository(str(root))
    commits = walk(repo, prior)
    by_git = git_changes(repo, commits, prefix=prefix, git=git_executable())
    if not commits:  # nothing to walk: nothing to ask git
        assert by_git is None
        return []
    assert by_git is not None, "git log did not answer"
    git_side = [(str(c.id), by_git[str(c.id)]) for c in commits]
    libgit2_side = [(str(c.id), libgit2_changes(repo, c, prefix=prefix)) for c in commits]
    assert git_side == libgit2_side
    return git_side


def folder_both(root: Path, folder: str, prior: str | None = None) -> tuple[list[Any], bool]:
    """`GitFolder.history` by git and by libgit2, required equal."""
    by_git = GitFolder(root, folder).history(prior, git=git_executable())
    by_libgit2 = GitFolder(root, folder).history(prior, git="")
    assert by_git == by_libgit2
    return by_git


def repository_walk(root: Path, prior: str | None = None) -> tuple[list[Any], dict[str, Any], bool]:
    """The repository source's history walk: (history, deletions, complete)."""
    connector = RepositoryConnector(root, parse_config({}))
    repo = pygit2.Repository(str(root))
    batch = SourceBatch(source="repository")
    deletions = connector._walk_history(repo, repo.head.target, prior, batch, lambda *a: None)
    return batch.history, deletions, batch.history_complete


def repository_both(root: Path, monkeypatch: pytest.MonkeyPatch,
                    prior: str | None = None) -> tuple[list[Any], dict[str, Any], bool]:
    """The repository source's walk with git on PATH and without, required equal."""
    git_executable()
    with_git = repository_walk(root, prior)
    with monkeypatch.context() as m:
        m.setenv("PATH", "")
        assert shutil.which("git") is None
        without = repository_walk(root, prior)
    assert with_git == without
    return with_git


def all_equal(root: Path, monkeypatch: pytest.MonkeyPatch, prior: str | None = None) -> None:
    """Every walk gives the same answer from git and from libgit2."""
    changes_both(root, prior)
    changes_both(root, prior, prefix="backlog/")
    folder_both(root, "backlog", prior)
    folder_both(root, "", prior)
    repository_both(root, monkeypatch, prior)


# -- each case of history ---------------------------------------------------------------------

def test_a_linear_history_of_adds_edits_and_deletes(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"backlog/a.md": b"1", "backlog/b.md": b"1", "README.md": b"r"})
    h.commit({"backlog/a.md": b"2", "backlog/b.md": b"1", "README.md": b"r"})
    h.commit({"backlog/a.md": b"2", "README.md": b"r", "notes/n.md": b"n"})
    changes = changes_both(h.root)
    assert [c for _, c in changes] == [
        [FileChange(ADDED, "README.md"), FileChange(ADDED, "backlog/a.md"),
         FileChange(ADDED, "backlog/b.md")],
        [FileChange(MODIFIED, "backlog/a.md")],
        [FileChange(DELETED, "backlog/b.md", str(h.repo.create_blob(b"1"))),
         FileChange(ADDED, "notes/n.md")],
    ]
    entries, complete = folder_both(h.root, "backlog")
    assert complete and [(e.artifact_id, e.change) for e in entries] == [
        ("backlog/a.md", "added"), ("backlog/b.md", "added"), ("backlog/a.md", "modified"),
        ("backlog/b.md", "deleted")]
    history, deletions, _ = repository_both(h.root, monkeypatch)
    assert [e.artifact_id for e in history] == [
        "backlog/a.md", "backlog/b.md", "backlog/a.md", "backlog/b.md", "notes/n.md"]
    assert set(deletions) == {"backlog/b.md"}


def test_merges_are_diffed_against_their_first_parent(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    base = h.commit({"backlog/a.md": b"1", "backlog/b.md": b"1"})
    ours = h.commit({"backlog/a.md": b"ours", "backlog/b.md": b"1"}, parents=[base])
    theirs = h.commit({"backlog/a.md": b"1", "backlog/b.md": b"theirs", "backlog/c.md": b"c"},
                      parents=[base])
    merge = h.commit({"backlog/a.md": b"ours", "backlog/b.md": b"theirs", "backlog/c.md": b"c"},
                     parents=[ours, theirs], message="Merge theirs")
    changes = dict(changes_both(h.root))
    assert changes[merge] == [FileChange(MODIFIED, "backlog/b.md"), FileChange(ADDED, "backlog/c.md")]
    all_equal(h.root, monkeypatch)
    # a merge taking one side whole, and a merge that changes nothing against its first parent
    h.commit({"backlog/a.md": b"ours"}, parents=[merge, ours], message="Merge, dropping")
    h.commit({"backlog/a.md": b"ours"}, parents=[h.head, theirs], message="Merge, ours")
    all_equal(h.root, monkeypatch)


def test_an_octopus_merge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    base = h.commit({"backlog/a.md": b"1"})
    sides = [h.commit({"backlog/a.md": b"1", f"backlog/s{i}.md": b"s"}, parents=[base])
             for i in range(3)]
    h.commit({"backlog/a.md": b"1", **{f"backlog/s{i}.md": b"s" for i in range(3)}},
             parents=sides)
    all_equal(h.root, monkeypatch)


def test_a_folder_prefix_keeps_only_its_own_changes(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"docs/adr/0001.md": b"1", "docs/other.md": b"o", "docs/adr.md": b"x"})
    h.commit({"docs/adr/0001.md": b"1", "docs/other.md": b"changed", "docs/adr.md": b"y"})
    h.commit({"docs/adr/0001.md": b"2", "docs/adr/sub/0002.md": b"2", "docs/adr.md": b"y"})
    entries, _ = folder_both(h.root, "docs/adr")
    assert [(e.artifact_id, e.change) for e in entries] == [
        ("docs/adr/0001.md", "added"), ("docs/adr/0001.md", "modified"),
        ("docs/adr/sub/0002.md", "added")]
    assert len({e.revision for e in entries}) == 2  # the commit outside the folder is skipped
    all_equal(h.root, monkeypatch)


def test_a_folder_that_comes_goes_and_turns_into_a_file(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"README.md": b"r"})
    h.commit({"README.md": b"r", "backlog/a.md": b"1"})
    h.commit({"README.md": b"r"})
    h.commit({"README.md": b"r", "backlog": b"now a file"})
    h.commit({"README.md": b"r", "backlog/a.md": b"again"})
    entries, _ = folder_both(h.root, "backlog")
    assert [e.change for e in entries] == ["added", "deleted", "added"]
    all_equal(h.root, monkeypatch)


def test_a_rename_is_a_deletion_and_an_addition(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    body = b"a body long enough that any rename detection would pair the two names\n" * 20
    h.commit({"backlog/old.md": body})
    h.commit({"backlog/new.md": body})
    subprocess.run([git_executable(), "config", "diff.renames", "copies"], cwd=h.root, check=True)
    changes = changes_both(h.root)
    assert changes[1][1] == [FileChange(ADDED, "backlog/new.md"),
                             FileChange(DELETED, "backlog/old.md", str(h.repo.create_blob(body)))]
    all_equal(h.root, monkeypatch)


def test_a_type_change_is_a_deletion_and_an_addition(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"backlog/a.md": b"1", "backlog/b.md": b"1", "backlog/c.md": b"1",
              "backlog/d.md": b"1"})
    h.commit({"backlog/a.md": (LINK, b"b.md"), "backlog/b.md": (EXEC, b"1"),
              "backlog/c.md": (GITLINK, SOME_COMMIT.encode()), "backlog/d.md": b"1"})
    h.commit({"backlog/a.md": b"1", "backlog/b.md": (EXEC, b"1"),
              "backlog/c.md": (GITLINK, SOME_COMMIT.encode()), "backlog/d.md/e.md": b"1"})
    changes = changes_both(h.root)
    one = str(h.repo.create_blob(b"1"))
    assert changes[1][1] == [
        FileChange(DELETED, "backlog/a.md", one), FileChange(ADDED, "backlog/a.md"),
        FileChange(MODIFIED, "backlog/b.md"),  # the mode alone changed
        FileChange(DELETED, "backlog/c.md", one), FileChange(ADDED, "backlog/c.md")]
    all_equal(h.root, monkeypatch)


def test_a_submodule_gitlink_that_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"backlog/a.md": b"1", "vendor/lib": (GITLINK, SOME_COMMIT.encode())})
    h.commit({"backlog/a.md": b"1", "vendor/lib": (GITLINK, SOME_COMMIT[::-1].encode())})
    h.commit({"backlog/a.md": b"1"})
    changes = changes_both(h.root)
    assert [c.change for c in changes[1][1]] == [MODIFIED]
    subprocess.run([git_executable(), "config", "diff.ignoreSubmodules", "all"], cwd=h.root,
                   check=True)
    all_equal(h.root, monkeypatch)


def test_empty_commits_and_the_root_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({}, message="an empty root")
    h.commit({"backlog/a.md": b"1"})
    h.commit({"backlog/a.md": b"1"}, message="empty")
    changes = changes_both(h.root)
    assert [c for _, c in changes] == [[], [FileChange(ADDED, "backlog/a.md")], []]
    subprocess.run([git_executable(), "config", "log.showRoot", "false"], cwd=h.root, check=True)
    all_equal(h.root, monkeypatch)

    other = History(tmp_path / "r2")
    other.commit({"backlog/a.md": b"1"})  # a root commit with files
    assert changes_both(other.root) == [(other.head, [FileChange(ADDED, "backlog/a.md")])]
    all_equal(other.root, monkeypatch)


def test_a_message_that_is_not_utf8_and_an_encoding_header(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"backlog/a.md": b"1"}, message="caf\u00e9 in latin-1\n\nbody", encoding="ISO-8859-1",
             author="Ren\u00e9e")
    h.commit({"backlog/a.md": b"2"}, message="\n\n  subject after blank lines  \nbody\n")
    subprocess.run([git_executable(), "config", "i18n.logOutputEncoding", "UTF-16"], cwd=h.root,
                   check=True)
    entries, _ = folder_both(h.root, "backlog")
    assert [e.summary for e in entries] == ["caf\u00e9 in latin-1", "subject after blank lines"]
    assert entries[0].author == "Ren\u00e9e"
    all_equal(h.root, monkeypatch)


def test_a_path_that_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "r"
    History(root)
    git = git_executable()
    env = {**os.environ, "GIT_AUTHOR_NAME": "Dana", "GIT_AUTHOR_EMAIL": "d@example.com",
           "GIT_COMMITTER_NAME": "Dana", "GIT_COMMITTER_EMAIL": "d@example.com",
           "GIT_AUTHOR_DATE": f"{BASE_TIME} +0000", "GIT_COMMITTER_DATE": f"{BASE_TIME} +0000"}
    (root / "backlog").mkdir()
    raw = os.fsencode(root / "backlog") + b"/caf\xe9.md"
    with open(raw, "wb") as handle:
        handle.write(b"1")
    (root / "backlog" / "plain.md").write_bytes(b"1")
    subprocess.run([git, "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run([git, "commit", "-q", "-m", "names"], cwd=root, check=True, env=env)
    subprocess.run([git, "config", "core.quotePath", "true"], cwd=root, check=True)
    changes = changes_both(root)
    assert [c.path for c in changes[0][1]] == ["backlog/caf\udce9.md", "backlog/plain.md"]
    entries, _ = folder_both(root, "backlog")
    assert [e.artifact_id for e in entries] == ["backlog/plain.md"]  # never stored: named instead
    all_equal(root, monkeypatch)


def test_configuration_that_would_change_the_output_is_pinned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"backlog/a.md": b"1", "backlog/b.md": b"1", "notes/n.md": b"n"})
    h.commit({"backlog/a.md": b"2", "backlog/c.md": b"1", "notes/n.md": b"n"})
    base = h.head
    h.commit({"backlog/a.md": b"2", "backlog/c.md": b"side", "notes/n.md": b"n"}, parents=[base])
    side = h.head
    h.commit({"backlog/a.md": b"3", "backlog/c.md": b"1", "notes/n.md": b"n"}, parents=[base])
    h.commit({"backlog/a.md": b"3", "backlog/c.md": b"side", "notes/n.md": b"n"},
             parents=[h.head, side])
    (h.root / "order").write_text("notes/*\nbacklog/c.md\n")
    git = git_executable()
    for key, value in [("log.showSignature", "true"), ("diff.orderFile", str(h.root / "order")),
                       ("color.ui", "always"), ("log.decorate", "full"), ("core.abbrev", "7"),
                       ("log.abbrevCommit", "true"), ("format.pretty", "oneline"),
                       ("log.diffMerges", "combined"), ("diff.external", "false"),
                       ("diff.relative", "true"), ("log.showRoot", "false"),
                       ("diff.renames", "copies"), ("log.mailmap", "true")]:
        subprocess.run([git, "config", key, value], cwd=h.root, check=True)
    all_equal(h.root, monkeypatch)


# -- incremental walks --------------------------------------------------------------------------

def test_an_incremental_walk_from_a_prior_head(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    h.commit({"backlog/a.md": b"1"})
    prior = h.commit({"backlog/a.md": b"2"})
    side = h.commit({"backlog/a.md": b"2", "backlog/s.md": b"s"})
    h.commit({"backlog/a.md": b"3", "backlog/s.md": b"s"})
    entries, complete = folder_both(h.root, "backlog", prior)
    assert not complete
    assert [(e.artifact_id, e.change) for e in entries] == [
        ("backlog/s.md", "added"), ("backlog/a.md", "modified")]
    assert repository_both(h.root, monkeypatch, prior)[2] is False
    all_equal(h.root, monkeypatch, prior)
    # the prior head is HEAD: nothing to walk
    assert folder_both(h.root, "backlog", h.head) == ([], False)
    all_equal(h.root, monkeypatch, h.head)
    # a merge bringing in a branch made before the prior head
    tip = h.head
    old = h.commit({"backlog/a.md": b"1", "backlog/o.md": b"o"}, parents=[prior])
    h.commit({"backlog/a.md": b"3", "backlog/s.md": b"s", "backlog/o.md": b"o"},
             parents=[tip, old])
    all_equal(h.root, monkeypatch, side)


def test_a_rewritten_history_reads_the_whole_history(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "r")
    first = h.commit({"backlog/a.md": b"1"})
    gone = h.commit({"backlog/a.md": b"2"})
    h.commit({"backlog/a.md": b"rewritten"}, parents=[first])  # the branch moves off `gone`
    entries, complete = folder_both(h.root, "backlog", gone)
    assert complete and len(entries) == 2
    assert repository_both(h.root, monkeypatch, gone)[2] is True
    all_equal(h.root, monkeypatch, gone)
    missing = "0123456789" * 4  # a prior head the repository never had
    assert folder_both(h.root, "backlog", missing)[1] is True
    all_equal(h.root, monkeypatch, missing)


# -- random histories ---------------------------------------------------------------------------

NAMES = st.sampled_from(["backlog/a.md", "backlog/a-b.md", "backlog/a0.md", "backlog/a/x.md",
                         "backlog/b.md", "backlog/sub/c.md", "notes/n.md", "backlog/x.txt",
                         "top.md", "backlog.md"])
CONTENTS = st.one_of(
    st.sampled_from([b"1", b"2", b"3"]).map(lambda b: (BLOB, b)),
    st.just((EXEC, b"1")),
    st.just((LINK, b"a.md")),
    st.just((GITLINK, SOME_COMMIT.encode())),
)
STEP = st.tuples(
    st.dictionaries(NAMES, st.one_of(st.none(), CONTENTS), max_size=4),  # None deletes
    st.sampled_from(["tip", "tip", "tip", "branch", "merge"]),
)


def apply(tree: dict[str, tuple[int, bytes]], edits: dict[str, tuple[int, bytes] | None]
          ) -> dict[str, tuple[int, bytes]]:
    """The tree after the edits, with no name both a file and a folder (the later edit wins)."""
    out = dict(tree)
    for path, spec in edits.items():
        if spec is None:
            out.pop(path, None)
            continue
        out = {p: s for p, s in out.items()
               if not p.startswith(path + "/") and not path.startswith(p + "/")}
        out[path] = spec
    return out


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=7), prior_at=st.integers(0, 7))
def test_random_histories_give_equal_entries(tmp_path_factory: pytest.TempPathFactory,
                                             monkeypatch: pytest.MonkeyPatch,
                                             steps: list[Any], prior_at: int) -> None:
    h = History(tmp_path_factory.mktemp("random"))
    trees: dict[str, dict[str, tuple[int, bytes]]] = {}
    made: list[str] = []  # the branch's commits, oldest first
    aside: str | None = None  # the last commit made off the branch's first commit
    for edits, kind in steps:
        tip = made[-1] if made else None
        if kind == "branch" and len(made) > 1 and tip is not None:
            tree = apply(trees[made[0]], edits)
            aside = h.commit(dict(tree), parents=[made[0]])
            trees[aside] = tree
            h.repo.references.create("refs/heads/main", pygit2.Oid(hex=tip), force=True)
            continue
        parents = [tip] if tip else []
        if kind == "merge" and aside is not None and tip is not None:
            parents.append(aside)
        tree = apply(trees[tip] if tip else {}, edits)
        made.append(h.commit(dict(tree), parents=parents))
        trees[made[-1]] = tree
    prior = made[prior_at] if prior_at < len(made) else None
    all_equal(h.root, monkeypatch, prior)
    if aside is not None:
        all_equal(h.root, monkeypatch, aside)  # a prior head that is not an ancestor


# -- parsing and the fallback -------------------------------------------------------------------

def test_a_type_change_counts_as_a_deletion_then_an_addition() -> None:
    assert changes_of(b"T") == (DELETED, ADDED)
    assert changes_of(b"A") == (ADDED,) and changes_of(b"M") == (MODIFIED,)
    assert changes_of(b"D") == (DELETED,) and changes_of(b"U") == () and changes_of(b"X") == ()


def test_the_parser_takes_output_in_any_pieces() -> None:
    sha1, sha2 = "a" * 40, "b" * 40
    old = "c" * 40
    out = (f"{sha1}\0\n:100644 000000 {old} {'0' * 40} D\0backlog/x.md\0"
           f":000000 100644 {'0' * 40} {old} A\0odd \n:name.md\0{sha2}\0").encode()
    whole = RawLogParser(lambda p: True)
    assert whole.feed(out)
    expected = {sha1: [FileChange(DELETED, "backlog/x.md", old), FileChange(ADDED, "odd \n:name.md")],
                sha2: []}
    assert whole.finish() == expected
    for cut in range(1, len(out)):
        parser = RawLogParser(lambda p: True)
        assert parser.feed(out[:cut]) and parser.feed(out[cut:])
        assert parser.finish() == expected


def test_the_parser_refuses_what_git_does_not_print() -> None:
    assert not RawLogParser(lambda p: True).feed(b"not a commit id\0")
    assert not RawLogParser(lambda p: True).feed(b":100644 100644 a b M\0x.md\0")  # no commit yet
    cut_short = RawLogParser(lambda p: True)
    assert cut_short.feed(f"{'a' * 40}\0\n:100644 100644 {'b' * 40} {'c' * 40} M\0".encode())
    assert cut_short.finish() is None
    bad_record = RawLogParser(lambda p: True)
    assert not bad_record.feed(f"{'a' * 40}\0\n:100644 M\0x.md\0".encode())


def linear(tmp_path: Path) -> History:
    h = History(tmp_path / "r")
    h.commit({"backlog/a.md": b"1"})
    h.commit({"backlog/a.md": b"2", "backlog/b.md": b"1"})
    return h


def test_without_git_on_path_libgit2_answers(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    h = linear(tmp_path)
    expected = GitFolder(h.root, "backlog").history(None, git="")
    monkeypatch.setenv("PATH", "")
    repo = pygit2.Repository(str(h.root))
    commits = walk(repo)
    assert git_changes(repo, commits) is None
    assert GitFolder(h.root, "backlog").history(None) == expected
    assert len(expected[0]) == 3


def failing_git(tmp_path: Path, script: str) -> str:
    """An executable standing in for git that does what ``script`` says instead."""
    path = tmp_path / "fake-git"
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize("script", [
    "echo 'fatal: unsupported option' >&2; exit 129",  # too old, or refusing the repository
    "printf 'this is not what git log prints\\0'",  # exits 0 but prints what is not parsed
    "exit 0",  # names no commits at all
    "kill -9 $$",  # killed
])
def test_a_git_that_fails_leaves_the_answer_to_libgit2(tmp_path: Path, script: str) -> None:
    h = linear(tmp_path)
    expected = GitFolder(h.root, "backlog").history(None, git="")
    fake = failing_git(tmp_path, script)
    repo = pygit2.Repository(str(h.root))
    commits = walk(repo)
    assert git_changes(repo, commits, git=fake) is None
    assert GitFolder(h.root, "backlog").history(None, git=fake) == expected
    assert GitFolder(h.root, "backlog").history(None, git=str(tmp_path / "no-such-git")) == expected


def test_a_git_that_exits_before_reading_every_name_is_not_waited_for(tmp_path: Path) -> None:
    h = linear(tmp_path)
    fake = failing_git(tmp_path, "exec 0<&-; exit 129")  # closes its input: the write fails
    many = [h.head] * 50_000  # 2 MB of names, more than a pipe holds
    assert run_git_log(fake, str(h.root), many, lambda p: True) is None


def test_a_git_that_names_other_commits_leaves_the_answer_to_libgit2(tmp_path: Path) -> None:
    h = linear(tmp_path)
    first = str(h.repo.revparse_single("HEAD~1").id)
    fake = failing_git(tmp_path, f"printf '{first}\\0'")  # one commit of the two
    expected = GitFolder(h.root, "backlog").history(None, git="")
    assert GitFolder(h.root, "backlog").history(None, git=fake) == expected


def test_git_is_asked_exactly_the_commits_given(tmp_path: Path) -> None:
    h = History(tmp_path / "r")
    first = h.commit({"backlog/a.md": b"1"})
    h.commit({"backlog/a.md": b"2"})
    last = h.commit({"backlog/a.md": b"3", "backlog/b.md": b"1"})
    repo = pygit2.Repository(str(h.root))
    some = [repo[last], repo[first]]  # not a walk: any commits, in any order
    assert git_changes(repo, some, git=git_executable()) == {
        last: [FileChange(MODIFIED, "backlog/a.md"), FileChange(ADDED, "backlog/b.md")],
        first: [FileChange(ADDED, "backlog/a.md")]}


def test_a_short_walk_is_diffed_by_libgit2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = linear(tmp_path)
    marker = tmp_path / "git-was-asked"
    fake = failing_git(tmp_path, f"touch {marker}; exit 1")
    repo = pygit2.Repository(str(h.root))
    monkeypatch.setattr(history_log, "GIT_LOG_MIN_COMMITS", 3)
    assert git_changes(repo, walk(repo), git=fake) is None
    assert not marker.exists()
    monkeypatch.setattr(history_log, "GIT_LOG_MIN_COMMITS", 2)
    assert git_changes(repo, walk(repo), git=fake) is None
    assert marker.exists()
    assert git_changes(repo, walk(repo), git=git_executable()) is not None


def test_a_git_that_does_not_finish_in_time_is_killed(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    h = linear(tmp_path)
    expected = GitFolder(h.root, "backlog").history(None, git="")
    monkeypatch.setattr(history_log, "GIT_LOG_TIMEOUT_S", 0.2)
    fake = failing_git(tmp_path, "exec sleep 30")
    assert run_git_log(fake, str(h.root), [h.head], lambda p: True) is None
    assert GitFolder(h.root, "backlog").history(None, git=fake) == expected


def test_a_git_that_prints_too_much_is_stopped(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    h = linear(tmp_path)
    monkeypatch.setattr(history_log, "GIT_LOG_MAX_BYTES", 100)
    assert run_git_log(git_executable(), str(h.root), [h.head], lambda p: True) is None
    monkeypatch.setattr(history_log, "GIT_LOG_MAX_BYTES", 1 << 20)
    assert run_git_log(git_executable(), str(h.root), [h.head], lambda p: True) is not None


def test_git_overrides_in_the_environment_are_not_followed(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    h = linear(tmp_path)
    other = History(tmp_path / "other")
    other.commit({"backlog/z.md": b"z"})
    monkeypatch.setenv("GIT_DIR", str(other.root / ".git"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'diff.renames'='copies'")
    changes_both(h.root)


def test_replace_refs_are_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = linear(tmp_path)
    first = str(h.repo.revparse_single("HEAD~1").id)
    stand_in = h.commit({"backlog/replaced.md": b"r"}, parents=[])
    h.repo.references.create("refs/heads/main", h.repo.revparse_single(first).id, force=True)
    h.commit({"backlog/a.md": b"2", "backlog/b.md": b"1"})
    h.repo.references.create(f"refs/replace/{first}", pygit2.Oid(hex=stand_in))
    all_equal(h.root, monkeypatch)


def test_a_history_with_many_commits_and_files(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """More output than one read of the pipe: the parser's pieces join across reads."""
    h = History(tmp_path / "r")
    files: dict[str, bytes | tuple[int, bytes]] = {}
    for round_ in range(4):
        files = {**files, **{f"backlog/{round_}-{'n' * 60}-{i}.md": str(round_).encode()
                             for i in range(400)}}
        h.commit(files)
    monkeypatch.setattr(history_log, "READ_CHUNK", 4096)  # the output is about 25 reads
    changes = changes_both(h.root)
    assert sum(len(c) for _, c in changes) == 4 * 400


# -- the commits connector's file lists -----------------------------------------------------------

def commits_read(root: Path, since: str | None = None) -> list[Any]:
    settings = CommitsSettings(name="code", path=str(root), since=since)  # type: ignore[arg-type]
    batch = CommitsConnector(root, settings, "acme").read({}, {}, full=True, now="2030-01-01")
    assert not batch.gaps
    return batch.upserts


def test_the_commits_connector_lists_the_same_files_from_git_and_from_libgit2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = History(tmp_path / "code")
    base = h.commit({"src/a.py": b"1", "src/b.py": b"1", "README": b"r"})
    side = h.commit({"src/a.py": b"1", "src/b.py": b"side", "README": b"r", "new.py": b"n"},
                    parents=[base])
    h.clock += 2 * 86400  # the floor below falls between these days
    tip = h.commit({"src/a.py": (LINK, b"b.py"), "src/b.py": (EXEC, b"1"),
                    "vendor": (GITLINK, SOME_COMMIT.encode())}, parents=[base])
    h.commit({"src/a.py": (LINK, b"b.py"), "src/b.py": b"side", "new.py": b"n",
              "vendor": (GITLINK, SOME_COMMIT.encode())}, parents=[tip, side])
    h.commit({"src/a.py": (LINK, b"b.py"), "src/b.py": b"side", "new.py": b"n",
              "vendor": (GITLINK, SOME_COMMIT.encode())}, message="empty")
    git_executable()
    with_git = commits_read(h.root)
    with monkeypatch.context() as m:
        m.setenv("PATH", "")
        without = commits_read(h.root)
    assert with_git == without
    by_subject = {a.title: a.metadata["files"] for a in with_git}
    assert by_subject["empty"] == []
    assert [a.metadata["files"] for a in with_git if a.metadata.get("merge")] == [
        ["new.py", "src/b.py"]]
    day = dt.datetime.fromtimestamp(h.repo[tip].author.time, tz=dt.UTC).date()
    recent = [a for a in with_git if dt.datetime.fromisoformat(a.created_at).date() >= day]
    assert 0 < len(recent) < len(with_git)
    assert commits_read(h.root, day.isoformat()) == recent
    with monkeypatch.context() as m:
        m.setenv("PATH", "")
        assert commits_read(h.root, day.isoformat()) == recent


def test_the_commits_connector_reads_a_real_history_alike(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """This repository's own recent history (merges, renames, deletions) read both ways."""
    here = Path(__file__).resolve()
    top = next((p for p in here.parents if (p / ".git").exists()), None)
    assert top is not None, "this test reads the project's own history: run it from a git checkout"
    git = git_executable()
    clone = tmp_path / "clone"
    subprocess.run([git, "clone", "-q", "--no-local", "--depth", "60", f"file://{top}",
                    str(clone)], check=True, capture_output=True)
    with_git = commits_read(clone)
    with monkeypatch.context() as m:
        m.setenv("PATH", "")
        without = commits_read(clone)
    assert with_git == without and len(with_git) >= 2
