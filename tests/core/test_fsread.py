"""fsread: every read bounded before it happens, regular files only, never outside its root."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from revetly_core.fsread import (
    Listing,
    ReadRefused,
    contained,
    display_path,
    is_stand_in,
    name_problem,
    read_blob,
    read_file,
    resolved_under,
)


def refused(root: Path, rel: str, limit: int = 1000) -> str:
    with pytest.raises(ReadRefused) as info:
        read_file(root, rel, limit)
    return info.value.code


def test_a_regular_file_under_the_limit_is_read(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"hello")
    assert read_file(tmp_path, "a.md", 5) == b"hello"


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"x" * 11)
    assert refused(tmp_path, "a.md", 10) == "too-large"


def test_a_3_gb_sparse_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    with open(tmp_path / "huge.md", "wb") as fh:
        fh.truncate(3 * 1024**3)
    assert refused(tmp_path, "huge.md", 1_000_000) == "too-large"


def test_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.md").write_text("secret")
    (root / "leak.md").symlink_to(tmp_path / "secret.md")
    assert refused(root, "leak.md") == "outside-root"


def test_a_symlink_to_dev_zero_is_refused_before_any_read(tmp_path: Path) -> None:
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    assert refused(tmp_path, "zero.md") == "outside-root"


def test_dev_zero_as_the_root_itself_is_not_regular() -> None:
    assert refused(Path("/dev"), "zero") == "not-regular"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")  # nobody writes it: a blocking open would hang forever
    assert refused(tmp_path, "pipe.md") == "not-regular"


def test_a_folder_is_not_regular(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    assert refused(tmp_path, "dir.md") == "not-regular"


def test_a_folder_that_links_out_is_refused(tmp_path: Path) -> None:
    root, out = tmp_path / "root", tmp_path / "out"
    root.mkdir()
    out.mkdir()
    (out / "a.md").write_text("outside")
    (root / "records").symlink_to(out)
    assert refused(root, "records/a.md") == "outside-root"


def test_a_link_inside_the_root_is_followed(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "real.md").write_text("real")
    (tmp_path / "alias.md").symlink_to("notes/real.md")
    assert read_file(tmp_path, "alias.md", 100) == b"real"
    assert contained(tmp_path, "alias.md") == os.path.realpath(tmp_path / "notes" / "real.md")


def test_dot_dot_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "x.md").write_text("x")
    assert refused(root, "../x.md") == "outside-root"


def test_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_file(tmp_path, "gone.md", 10)


def test_a_name_that_is_not_utf8_is_refused_and_shown_escaped() -> None:
    name = os.fsdecode(b"caf\xe9.md")
    problem = name_problem(name)
    assert problem is not None and problem.code == "bad-name"
    assert display_path(name) == "caf\\xe9.md"
    assert name_problem("café.md") is None


def test_a_blob_over_the_limit_is_refused_by_its_header(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path))
    oid = str(repo.create_blob(b"y" * 100))
    assert read_blob(repo, oid, 100) == b"y" * 100
    with pytest.raises(ReadRefused) as info:
        read_blob(repo, oid, 99)
    assert info.value.code == "too-large"


def test_a_listing_names_a_refused_file_with_a_stand_in_id(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path))
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    (tmp_path / "ok.md").write_text("fine")
    listing = Listing(tmp_path, 100)
    listing.add_worktree("zero.md")
    listing.add_worktree("ok.md")
    assert is_stand_in(listing.blobs["zero.md"]) and not is_stand_in(listing.blobs["ok.md"])
    assert listing.blobs["ok.md"] == str(pygit2.hash(b"fine"))
    with pytest.raises(ReadRefused):
        listing.read("zero.md", repo, listing.blobs["zero.md"])
    assert listing.read("ok.md", repo, listing.blobs["ok.md"]) == b"fine"


def test_a_listing_resolves_its_root_once_and_still_refuses_links_out(tmp_path: Path) -> None:
    """Listing.read checks each file against the root's real path resolved once (a linked
    root included); a symlink out of it is still refused, one inside still followed."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "root").symlink_to(real)
    root = tmp_path / "root"
    outside = tmp_path / "secret.md"
    outside.write_text("secret")
    (real / "out.md").symlink_to(outside)
    (real / "ok.md").write_text("fine")
    (real / "alias.md").symlink_to(real / "ok.md")
    repo = pygit2.init_repository(str(real))
    listing = Listing(root, 100)
    assert listing.real_root == os.path.realpath(root) == str(real.resolve())
    assert listing.read("ok.md", repo, "0" * 40) == b"fine"
    assert listing.read("alias.md", repo, "0" * 40) == b"fine"
    with pytest.raises(ReadRefused) as info:
        listing.read("out.md", repo, "0" * 40)
    assert info.value.code == "outside-root"


_PARTS = st.sampled_from(["a", "b", "f.md", "link-in", "link-out", "loop", "gone", "..", ".", ""])


@given(st.lists(_PARTS, min_size=1, max_size=4))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_resolved_under_is_realpath_below_a_real_root(tmp_path: Path, parts: list[str]) -> None:
    root = tmp_path / "root"
    if not root.exists():
        (root / "a" / "b").mkdir(parents=True)
        (root / "a" / "f.md").write_text("x")
        (root / "f.md").write_text("x")
        (root / "a" / "link-in").symlink_to(root / "a" / "b")
        (root / "link-out").symlink_to(tmp_path)
        (root / "a" / "loop").symlink_to("loop")
    real_root = os.path.realpath(root)
    rel = "/".join(parts)
    assert resolved_under(real_root, rel) == os.path.realpath(os.path.join(real_root, rel))


def test_contained_still_refuses_a_link_out_of_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)
    with pytest.raises(ReadRefused):
        contained(root, "out/x.md", os.path.realpath(root))
