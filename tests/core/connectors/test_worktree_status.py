"""git status as a pass asks it: `git status` when git is on PATH, libgit2 otherwise.

Every change a user can make to a work tree is made to a real repository, and both answers
must name it (or, for a change that leaves the bytes and the mode alone, neither does).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from revetly_core.connectors.worktree_status import (
    git_environment,
    git_status_paths,
    libgit2_status_paths,
    parse_porcelain_z,
    reported_paths,
)

from tests.core.gitrepo import GitRepo


def git_executable() -> str:
    """The git on PATH: these tests compare its status with libgit2's, so it must be there (it
    is the tool that cloned this repository)."""
    found = shutil.which("git")
    assert found is not None, "these tests need git on PATH"
    return found


BODY = "---\nid: STORY-1\ntitle: One\n---\nfirst\n"


def committed(tmp_path: Path) -> GitRepo:
    g = GitRepo(tmp_path / "repo")
    g.write(".gitignore", "scratch/\n")
    g.write("backlog/STORY-1.md", BODY)
    g.write("backlog/STORY-2.md", BODY.replace("1", "2"))
    g.commit("two stories")
    return g


def both(g: GitRepo) -> tuple[list[str], list[str]]:
    """(what `git status` reports, what libgit2 reports), each sorted."""
    repo = pygit2.Repository(str(g.root))
    by_git = git_status_paths(git_executable(), str(g.root))
    assert by_git is not None
    return sorted(by_git), sorted(libgit2_status_paths(repo))


def later_mtime(path: Path) -> None:
    """Move a file's mtime a second on, so no stat cache can take it for unchanged."""
    st = path.lstat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000), follow_symlinks=False)


def edit_same_size(g: GitRepo) -> None:
    path = g.root / "backlog/STORY-1.md"
    path.write_bytes(path.read_bytes().replace(b"first", b"FIRST"))
    later_mtime(path)


def touch(g: GitRepo) -> None:
    later_mtime(g.root / "backlog/STORY-1.md")


def add(g: GitRepo) -> None:
    g.write("backlog/STORY-3.md", BODY.replace("1", "3"))


def add_in_new_folder(g: GitRepo) -> None:
    g.write("backlog/deep/er/STORY-3.md", BODY.replace("1", "3"))


def delete(g: GitRepo) -> None:
    g.unlink("backlog/STORY-1.md")


def rename(g: GitRepo) -> None:
    (g.root / "backlog/STORY-1.md").rename(g.root / "backlog/STORY-9.md")


def chmod_only(g: GitRepo) -> None:
    (g.root / "backlog/STORY-1.md").chmod(0o755)


def replaced_by_symlink(g: GitRepo) -> None:
    path = g.root / "backlog/STORY-1.md"
    path.unlink()
    path.symlink_to("STORY-2.md")


def staged_then_reverted(g: GitRepo) -> None:
    edit_same_size(g)
    g.repo.index.read()
    g.repo.index.add("backlog/STORY-1.md")
    g.repo.index.write()
    (g.root / "backlog/STORY-1.md").write_bytes(BODY.encode())


def not_utf8_name(g: GitRepo) -> None:
    (g.root / "backlog").joinpath(os.fsdecode(b"bad\xff.md")).write_bytes(b"x")


CHANGES = [
    (edit_same_size, ["backlog/STORY-1.md"]),
    (touch, []),
    (add, ["backlog/STORY-3.md"]),
    (add_in_new_folder, ["backlog/deep/er/STORY-3.md"]),
    (delete, ["backlog/STORY-1.md"]),
    (rename, ["backlog/STORY-1.md", "backlog/STORY-9.md"]),
    (chmod_only, ["backlog/STORY-1.md"]),
    (replaced_by_symlink, ["backlog/STORY-1.md"]),
    (staged_then_reverted, ["backlog/STORY-1.md"]),
    (not_utf8_name, [os.fsdecode(b"backlog/bad\xff.md")]),
]


@pytest.mark.parametrize(("change", "expected"), CHANGES, ids=[c.__name__ for c, _ in CHANGES])
def test_git_and_libgit2_both_report_each_change_a_user_can_make(
    tmp_path: Path, change: object, expected: list[str]
) -> None:
    g = committed(tmp_path)
    assert both(g) == ([], [])
    change(g)  # type: ignore[operator]
    assert both(g) == (expected, expected)


def test_an_ignored_file_is_reported_by_neither(tmp_path: Path) -> None:
    g = committed(tmp_path)
    g.write("scratch/STORY-5.md", BODY)
    assert both(g) == ([], [])


def test_an_edit_keeping_the_size_and_the_mtime_is_still_reported(tmp_path: Path) -> None:
    """The file's own stat data is not all that is compared: its change time moved."""
    g = committed(tmp_path)
    path = g.root / "backlog/STORY-1.md"
    stamp = path.stat().st_mtime_ns
    path.write_bytes(path.read_bytes().replace(b"first", b"FIRST"))
    os.utime(path, ns=(stamp, stamp))  # same size, same mtime as when it was indexed
    assert both(g) == (["backlog/STORY-1.md"], ["backlog/STORY-1.md"])


def test_libgit2_answers_when_git_is_not_asked(tmp_path: Path) -> None:
    g = committed(tmp_path)
    add(g)
    repo = pygit2.Repository(str(g.root))
    assert reported_paths(repo, git="") == ["backlog/STORY-3.md"]


def test_libgit2_answers_when_git_cannot_run(tmp_path: Path) -> None:
    g = committed(tmp_path)
    add(g)
    repo = pygit2.Repository(str(g.root))
    missing = str(tmp_path / "no-such-git")
    assert git_status_paths(missing, str(g.root)) is None
    assert reported_paths(repo, git=missing) == ["backlog/STORY-3.md"]


def test_libgit2_answers_when_git_fails(tmp_path: Path) -> None:
    g = committed(tmp_path)
    add(g)
    failing = tmp_path / "failing-git"
    failing.write_text("#!/bin/sh\necho 'fatal: refused' >&2\nexit 128\n")
    failing.chmod(0o755)
    repo = pygit2.Repository(str(g.root))
    assert git_status_paths(str(failing), str(g.root)) is None
    assert reported_paths(repo, git=str(failing)) == ["backlog/STORY-3.md"]


def test_a_git_dir_in_the_environment_does_not_send_status_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = committed(tmp_path)
    other = GitRepo(tmp_path / "other")
    other.write("backlog/OTHER.md", BODY)
    monkeypatch.setenv("GIT_DIR", str(other.root / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other.root))
    assert "GIT_DIR" not in git_environment()
    add(g)
    repo = pygit2.Repository(str(g.root))
    assert reported_paths(repo) == ["backlog/STORY-3.md"]


def test_git_status_takes_no_lock_on_the_index(tmp_path: Path) -> None:
    """A background pass never holds index.lock: the user's own git keeps working."""
    g = committed(tmp_path)
    index = g.root / ".git" / "index"
    before = index.stat().st_mtime_ns
    time.sleep(0.01)
    later_mtime(g.root / "backlog/STORY-2.md")  # git would refresh this entry if it could
    assert git_status_paths(git_executable(), str(g.root)) == []
    assert index.stat().st_mtime_ns == before


_NAME = st.binary(min_size=1, max_size=30).filter(lambda b: b"\0" not in b)


@given(st.lists(st.tuples(st.sampled_from([b" M", b"M ", b"??", b"D ", b"AM", b"UU"]), _NAME),
                max_size=20))
def test_porcelain_records_parse_to_their_paths(records: list[tuple[bytes, bytes]]) -> None:
    out = b"".join(xy + b" " + name + b"\0" for xy, name in records)
    assert parse_porcelain_z(out) == [n.decode("utf-8", "surrogateescape") for _, n in records]


OPS = st.lists(st.tuples(
    st.sampled_from(["write", "same-size", "touch", "unlink", "rename", "chmod", "symlink",
                     "stage", "commit"]),
    st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=8)


def mutate(g: GitRepo, op: tuple[str, int, int], step: int) -> None:
    kind, a, b = op
    path, other = g.root / f"backlog/S{a}.md", g.root / f"backlog/S{b}.md"
    if kind == "write":
        g.write(f"backlog/S{a}.md", f"step {step} of {a}\n" * (step + 1))
    elif not path.is_file() or path.is_symlink():
        return
    elif kind == "same-size":
        data = path.read_bytes()
        path.write_bytes(data[::-1])
        later_mtime(path)
    elif kind == "touch":
        later_mtime(path)
    elif kind == "unlink":
        path.unlink()
    elif kind == "rename" and not other.exists():
        path.rename(other)
    elif kind == "chmod":
        path.chmod(path.stat().st_mode ^ 0o111)
    elif kind == "symlink" and a != b:
        path.unlink()
        path.symlink_to(other.name)
    elif kind == "stage":
        g.repo.index.read()
        g.repo.index.add(f"backlog/S{a}.md")
        g.repo.index.write()
    elif kind == "commit":
        g.commit(f"step {step}")


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(OPS)
def test_git_and_libgit2_agree_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, int, int]]
) -> None:
    g = GitRepo(tmp_path_factory.mktemp("status") / "repo")
    for i in range(3):
        g.write(f"backlog/S{i}.md", f"story {i}\n")
    g.commit("stories")
    for step, op in enumerate(ops):
        mutate(g, op, step)
        by_git, by_libgit2 = both(g)
        assert by_git == by_libgit2, f"after {ops[:step + 1]}"
