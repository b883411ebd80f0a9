"""The owner-private home: modes on creation, and refusal of anything readable by others."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from revetly_core.governed.home import check_vault_id, write_private_file
from revetly_core.governed.principals import read_credential_file

from revetly_core import EvidenceService, Refusal


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_home_is_owner_private(tmp_path: Path) -> None:
    evidence, _ = EvidenceService.create(tmp_path, "v1")
    home = evidence.home
    assert _mode(home.path) == 0o700
    assert _mode(home.master_key_path) == 0o600
    assert _mode(home.database) == 0o600
    assert _mode(home.checkpoints) == 0o700
    assert all(_mode(p) == 0o600 for p in home.checkpoints.iterdir())


def test_a_home_whose_key_is_group_readable_is_refused(tmp_path: Path) -> None:
    evidence, _ = EvidenceService.create(tmp_path, "v1")
    evidence.close()
    os.chmod(evidence.home.master_key_path, 0o640)
    with pytest.raises(Refusal) as refused:
        EvidenceService.open(tmp_path, "v1")
    assert refused.value.code == "not_owner_private"


def test_a_home_directory_open_to_others_is_refused(tmp_path: Path) -> None:
    evidence, _ = EvidenceService.create(tmp_path, "v1")
    evidence.close()
    os.chmod(evidence.home.path, 0o755)
    with pytest.raises(Refusal) as refused:
        EvidenceService.open(tmp_path, "v1")
    assert refused.value.code == "not_owner_private"


def test_a_world_readable_checkpoint_is_refused(tmp_path: Path) -> None:
    evidence, _ = EvidenceService.create(tmp_path, "v1")
    evidence.close()
    os.chmod(next(evidence.home.checkpoints.iterdir()), 0o644)
    with pytest.raises(Refusal) as refused:
        EvidenceService.open(tmp_path, "v1")
    assert refused.value.code == "not_owner_private"


def test_creating_over_an_existing_home_is_refused(tmp_path: Path) -> None:
    EvidenceService.create(tmp_path, "v1")
    with pytest.raises(Refusal) as refused:
        EvidenceService.create(tmp_path, "v1")
    assert refused.value.code == "home_exists"


def test_opening_a_missing_home_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as refused:
        EvidenceService.open(tmp_path, "nothing")
    assert refused.value.code == "no_home"


@pytest.mark.parametrize("bad", ["", "../x", "a/b", ".hidden", "x" * 65, "sp ace"])
def test_vault_ids_cannot_name_paths(bad: str) -> None:
    with pytest.raises(Refusal):
        check_vault_id(bad)


def test_credential_files_must_be_owner_private(tmp_path: Path) -> None:
    path = tmp_path / "app.token"
    write_private_file(path, b"rva_abc\n")
    assert read_credential_file(path) == "rva_abc"
    os.chmod(path, 0o644)
    with pytest.raises(Refusal) as refused:
        read_credential_file(path)
    assert refused.value.code == "not_owner_private"


def test_a_credential_file_must_hold_a_credential(tmp_path: Path) -> None:
    path = tmp_path / "other"
    write_private_file(path, b"hunter2")
    with pytest.raises(Refusal) as refused:
        read_credential_file(path)
    assert refused.value.code == "bad_credential_file"


def test_private_files_are_never_overwritten(tmp_path: Path) -> None:
    write_private_file(tmp_path / "f", b"1")
    with pytest.raises(Refusal) as refused:
        write_private_file(tmp_path / "f", b"2")
    assert refused.value.code == "file_exists"
    assert (tmp_path / "f").read_bytes() == b"1"
