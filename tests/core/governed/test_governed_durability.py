"""The vault's durability (ADR 0037): process (default) survives kill -9; power adds the fsyncs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from revetly_core.governed.evidence_db import (
    DEFAULT_DURABILITY,
    EvidenceDatabase,
    check_durability,
    synchronous_level,
    write_anchor,
)

from revetly_core import EvidenceService, Refusal

_SYNCHRONOUS = {"NORMAL": 1, "FULL": 2}


def test_the_default_durability_is_process() -> None:
    assert DEFAULT_DURABILITY == "process"


def test_an_unknown_durability_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as refused:
        check_durability("eventually")
    assert refused.value.code == "bad_durability"
    with pytest.raises(Refusal):
        EvidenceService.create(tmp_path, "v", durability="eventually")  # type: ignore[arg-type]


def test_process_durability_is_synchronous_normal_and_power_is_full() -> None:
    assert synchronous_level("process") == "NORMAL"
    assert synchronous_level("power") == "FULL"


@pytest.mark.parametrize("durability", ["process", "power"])
def test_the_connection_runs_in_wal_at_the_durability_level(tmp_path: Path, durability: str) -> None:
    db = EvidenceDatabase(tmp_path / "evidence.db", check_durability(durability))
    db.set_durability()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == _SYNCHRONOUS[synchronous_level(db.durability)]
    db.close()


@pytest.mark.parametrize(("durability", "fsyncs"), [("process", 0), ("power", 2)])
def test_a_checkpoint_file_is_fsynced_with_its_folder_only_for_power(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, durability: str, fsyncs: int) -> None:
    calls: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    write_anchor(tmp_path / "anchor.ckpt", b"sealed head", check_durability(durability))
    assert (tmp_path / "anchor.ckpt").read_bytes() == b"sealed head"
    assert (tmp_path / "anchor.ckpt").stat().st_mode & 0o777 == 0o600
    assert len(calls) == fsyncs


_KILLED_WRITER = """
import os, signal, sys
from revetly_core import EvidenceService
evidence = EvidenceService.open(sys.argv[1], "v")
evidence.append_many("p", [("a", {"n": 1}), ("b", {"n": 2})])
evidence.append("p", "c", {"n": 3})
print("appended", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_commits_of_a_process_killed_with_sigkill_survive_at_process_durability(tmp_path: Path) -> None:
    evidence, _ = EvidenceService.create(tmp_path, "v")
    evidence.close()
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.strip() == "appended"
    again = EvidenceService.open(tmp_path, "v")
    assert [payload["n"] for _, payload in again.records("p")] == [1, 2, 3]
    assert again.verify("p")["count"] == 3
    again.close()
