"""A home's private files are replaced through the engine's one durable write."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from revetly_core.governed import home
from revetly_core.writes import files


def test_a_replaced_private_file_is_0600_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "anchor"
    target.write_bytes(b"old")
    os.chmod(target, 0o644)
    home.replace_private_file(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["anchor"]


def test_replacing_a_private_file_fsyncs_its_folder(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[Path] = []
    monkeypatch.setattr(files, "_fsync_dir", synced.append)
    home.replace_private_file(tmp_path / "anchor", b"sealed")
    assert synced == [tmp_path]
