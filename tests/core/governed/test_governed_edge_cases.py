"""Governed edge cases: each is a refusal, and each test proves nothing was written.

A truncated evidence.db, an expiry past the calendar, a grant refused after its credential
would have been issued, and credential paths that are dangling symbolic links.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from revetly_core.governed.evidence_db import database_refusal
from revetly_core.governed.home import require_new_file, write_private_file
from revetly_core.governed.local import open_local
from revetly_core.governed.owner import expiry_after_days, grant_from_files, init_home, parse_expiry

from revetly_core import EvidenceService, Refusal, Scope

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE = Scope("writer", "project")


def tree(folder: Path) -> dict[str, str]:
    """Every file under a folder (symlinks as their target) with a digest of its bytes."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = "-> " + str(path.readlink())
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            out[rel] = "dir"
    return out


@pytest.fixture()
def owned(tmp_path: Path) -> Path:
    """A folder holding a home 'vault' (under homes/) and its owner credential owner.token."""
    init_home(tmp_path / "homes", "vault", tmp_path / "owner.token")
    return tmp_path


def _grant(folder: Path, app_file: Path, operations: list[str], days: float | None = 1.0,
           expires: str | None = None) -> dict[str, object]:
    return grant_from_files(folder / "homes", "vault", folder / "owner.token", app_file, SCOPE,
                            operations, expires, days)


# ---- a damaged evidence database ----


@pytest.mark.parametrize("keep", [0, 50, 100, 4096, "half", "all-but-a-page"])
def test_a_truncated_evidence_db_is_the_integrity_refusal_and_nothing_is_written(
        owned: Path, keep: int | str) -> None:
    _grant(owned, owned / "app.token", ["search"])
    db = owned / "homes" / "vault" / "evidence.db"
    whole = db.read_bytes()
    cut = {"half": len(whole) // 2, "all-but-a-page": len(whole) - 4096}.get(str(keep), keep)
    assert isinstance(cut, int)
    db.write_bytes(whole[:cut])
    before = tree(owned)
    with pytest.raises(Refusal) as refused:
        local = open_local(owned / "homes", "vault", owned / "app.token", "writer", "project")
        try:
            local.rag.sources(local.session)
        finally:
            local.close()
    assert refused.value.code == "evidence_integrity"
    assert "restore" in refused.value.fix
    assert tree(owned) == before


def test_an_empty_evidence_db_of_a_fresh_home_is_set_up_again(tmp_path: Path) -> None:
    """A set-up cut short (the file created, nothing in it, no checkpoint yet) is not damage."""
    evidence, _ = EvidenceService.create(tmp_path / "homes", "vault")
    evidence.close()
    home = tmp_path / "homes" / "vault"
    for anchor in (home / ".feedback-checkpoints").iterdir():
        anchor.unlink()
    (home / "evidence.db").write_bytes(b"")
    EvidenceService.open(tmp_path / "homes", "vault").close()


def test_a_locked_database_is_busy_not_damaged(tmp_path: Path) -> None:
    import sqlite3

    assert database_refusal(tmp_path, sqlite3.OperationalError("database is locked")).code == \
        "evidence_busy"
    assert database_refusal(tmp_path, sqlite3.DatabaseError("file is not a database")).code == \
        "evidence_integrity"


# ---- expiries ----


@pytest.mark.parametrize("days", [100_000_000, 1e300, float("inf"), float("nan"), 0, -3])
def test_days_outside_the_calendar_or_not_positive_are_refused(days: float) -> None:
    with pytest.raises(Refusal) as refused:
        expiry_after_days(days, NOW)
    assert refused.value.code == "bad_expiry"


@settings(max_examples=200)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_any_number_of_days_is_an_expiry_or_a_refusal(days: float) -> None:
    try:
        when = parse_expiry(None, days, NOW)
    except Refusal as refusal:
        assert refusal.code == "bad_expiry"
    else:
        assert when > NOW


def test_an_instant_that_leaves_the_calendar_in_utc_is_refused() -> None:
    with pytest.raises(Refusal) as refused:
        parse_expiry("9999-12-31T23:59:59-05:00", None, NOW)
    assert refused.value.code == "bad_expiry"


def test_owner_grant_with_a_hundred_million_days_is_refused_writing_nothing(owned: Path) -> None:
    before = tree(owned)
    with pytest.raises(Refusal) as refused:
        _grant(owned, owned / "app.token", ["search"], days=100_000_000)
    assert refused.value.code == "bad_expiry"
    assert tree(owned) == before


# ---- a refused grant writes nothing ----


@pytest.mark.parametrize(("operations", "days", "expires", "code"), [
    (["bogus"], 1.0, None, "bad_operations"),
    ([], 1.0, None, "bad_operations"),
    (["search"], None, "2000-01-01T00:00:00Z", "bad_expiry"),
    (["search"], None, None, "bad_expiry"),
])
def test_a_refused_grant_issues_no_credential_and_writes_no_token_file(
        owned: Path, operations: list[str], days: float | None, expires: str | None,
        code: str) -> None:
    before = tree(owned)
    with pytest.raises(Refusal) as refused:
        _grant(owned, owned / "app.token", operations, days, expires)
    assert refused.value.code == code
    assert not (owned / "app.token").exists()
    assert tree(owned) == before


def test_a_grant_by_another_than_the_owner_writes_no_token_file(owned: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    init_home(other / "homes", "vault", other / "owner.token")
    before = tree(owned)
    with pytest.raises(Refusal) as refused:
        grant_from_files(owned / "homes", "vault", other / "owner.token", owned / "app.token",
                         SCOPE, ["search"], None, 1.0)
    assert refused.value.code == "not_owner"
    assert tree(owned) == before


def test_a_granted_credential_file_authenticates(owned: Path) -> None:
    answer = _grant(owned, owned / "app.token", ["search"])
    assert answer["credential_issued"] is True
    local = open_local(owned / "homes", "vault", owned / "app.token", "writer", "project")
    try:
        assert local.session.principal_id == answer["grant"]["principal_id"]  # type: ignore[index]
    finally:
        local.close()


# ---- dangling symbolic links ----


def test_an_owner_credential_path_that_is_a_dangling_symlink_is_refused_before_the_home(
        tmp_path: Path) -> None:
    (tmp_path / "owner.token").symlink_to(tmp_path / "nowhere" / "owner.token")
    before = tree(tmp_path)
    with pytest.raises(Refusal) as refused:
        init_home(tmp_path / "homes", "vault", tmp_path / "owner.token")
    assert refused.value.code == "file_exists"
    assert not (tmp_path / "homes").exists()
    assert tree(tmp_path) == before


def test_an_app_credential_path_that_is_a_dangling_symlink_is_refused_writing_nothing(
        owned: Path) -> None:
    (owned / "app.token").symlink_to(owned / "nowhere")
    before = tree(owned)
    with pytest.raises(Refusal) as refused:
        _grant(owned, owned / "app.token", ["search"])
    assert refused.value.code == "missing_private_file"
    assert tree(owned) == before


def test_require_new_file_refuses_a_symlink_and_a_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "absent")
    for path, code in ((tmp_path / "link", "file_exists"), (tmp_path / "no" / "f", "no_file")):
        with pytest.raises(Refusal) as refused:
            require_new_file(path, "credential file")
        assert refused.value.code == code
    require_new_file(tmp_path / "free", "credential file")


def test_write_private_file_never_follows_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "target"
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(Refusal):
        write_private_file(tmp_path / "link", b"secret")
    assert not target.exists()


def test_an_owner_credential_that_cannot_be_written_leaves_no_home(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as refused:
        init_home(tmp_path / "homes", "vault", tmp_path / "no-such-folder" / "owner.token")
    assert refused.value.code == "no_file"
    assert not (tmp_path / "homes").exists()
