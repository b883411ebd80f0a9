"""Master-key rotation: every data key re-wrapped under a new master key, all or nothing.

The crash cases run the real `revetly rag owner rotate-master-key` in a subprocess killed (as
abruptly as kill -9) at each rotation crash point, then open the vault and retry in fresh
processes: the vault always opens with every record readable, and one rotation id never rotates
twice."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from revetly_core.governed import crypto
from revetly_core.governed.vault import (
    MASTER_CRASH_POINTS,
    ROTATED_FORMAT,
    check_rotation_id,
    master_fingerprint,
    resolve_master,
)
from revetly_core.writes.crash import CRASH_EXIT
from revetly_core.writes.files import temp_name

from revetly_core import EvidenceService, Refusal
from tests.core.governed.governed_world import World
from tests.core.governed.test_governed_adoption import cli

OLD, NEW = b"o" * 32, b"n" * 32


def everything(evidence: EvidenceService) -> dict[str, list[tuple[str, dict[str, object]]]]:
    """Every record of every partition, decrypted (opening one is a full check of its partition)."""
    return {p: evidence.records(p) for p in evidence.partitions() if evidence.key_ids(p)}


def rotations(home: Path) -> list[str]:
    with closing(sqlite3.connect(home / "evidence.db")) as db:
        return [r[0] for r in db.execute("SELECT key FROM meta WHERE key LIKE 'master-rotation:%'")]


# ---- the rules, one test each ----

def test_the_recorded_fingerprint_decides_which_key_is_the_master_key() -> None:
    assert resolve_master(OLD, None, None) == (OLD, "keep-current")  # a vault never rotated
    assert resolve_master(OLD, None, master_fingerprint(OLD)) == (OLD, "keep-current")
    assert resolve_master(OLD, NEW, master_fingerprint(OLD)) == (OLD, "drop-next")  # never committed
    assert resolve_master(OLD, NEW, None) == (OLD, "drop-next")
    assert resolve_master(OLD, NEW, master_fingerprint(NEW)) == (NEW, "promote-next")  # committed
    for pending in (None, b"x" * 32):
        with pytest.raises(Refusal) as refused:
            resolve_master(OLD, pending, master_fingerprint(NEW))
        assert refused.value.code == "master_key_mismatch"


def test_a_fingerprint_names_a_key_without_revealing_it() -> None:
    assert OLD.hex() not in master_fingerprint(OLD) and master_fingerprint(OLD) != master_fingerprint(NEW)


def test_a_rotation_id_is_an_event_id() -> None:
    assert check_rotation_id("rotate-2026.1") == "rotate-2026.1"
    for bad in ("", "../x", "-x", "x" * 65):
        with pytest.raises(Refusal) as refused:
            check_rotation_id(bad)
        assert refused.value.code == "bad_rotation_id"


# ---- rotation over a real vault ----

def test_rotation_rewraps_every_data_key_and_keeps_ciphertext_and_checkpoints(world: World) -> None:
    world.feedback.report_outcome(world.session, {"run_id": "r", "task_id": "t", "status": "failed"}, "k")
    home = world.evidence.home
    before = everything(world.evidence)
    old_master = home.master_key_path.read_bytes()
    checkpoints = {p.name: p.read_bytes() for p in home.checkpoints.iterdir()}
    with closing(sqlite3.connect(home.database)) as db:
        ciphertext = sorted(db.execute("SELECT partition, record_id, ciphertext FROM records").fetchall())
    done = world.evidence.rotate_master_key(world.owner, "rotate-1")
    assert done["rewrapped_keys"] == sum(len(world.evidence.key_ids(p)) for p in world.evidence.partitions())
    assert home.master_key_path.read_bytes() != old_master and not home.pending_master_key_path.exists()
    assert {p.name: p.read_bytes() for p in home.checkpoints.iterdir()} == checkpoints
    with closing(sqlite3.connect(home.database)) as db:
        rows = sorted(db.execute("SELECT partition, record_id, ciphertext FROM records").fetchall())
        assert rows == ciphertext
        partition, key_id, wrapped = db.execute("SELECT partition, key_id, wrapped_key FROM partition_keys "
                                                "LIMIT 1").fetchone()
    with pytest.raises(Refusal):  # the old master key no longer opens any data key
        crypto.unseal(old_master, wrapped, crypto.wrap_aad(partition, key_id), "data key")
    world.rag.close()
    world.evidence.close()
    reopened = EvidenceService.open(world.root, "vault", clock=world.clock)
    try:
        assert reopened.format_found == ROTATED_FORMAT
        assert everything(reopened) == before
        reopened.append("scope:project/writer#outcomes", "after-rotation", {"ok": True})
        for partition in reopened.partitions():
            if reopened.key_ids(partition):
                reopened.verify(partition)
    finally:
        reopened.close()


def test_the_same_rotation_id_returns_the_retained_rotation(world: World) -> None:
    first = world.evidence.rotate_master_key(world.owner, "rotate-1")
    key = world.evidence.home.master_key_path.read_bytes()
    again = world.evidence.rotate_master_key(world.owner, "rotate-1")
    assert again["replayed"] is True and again["fingerprint"] == first["fingerprint"]
    assert world.evidence.home.master_key_path.read_bytes() == key
    second = world.evidence.rotate_master_key(world.owner, "rotate-2")
    assert second["previous_fingerprint"] == first["fingerprint"]


def test_rotation_is_owner_only(world: World) -> None:
    with pytest.raises(Refusal) as refused:
        world.evidence.rotate_master_key(world.app_token, "rotate-1")
    assert refused.value.code == "not_owner"
    assert rotations(world.evidence.home.path) == []


def test_a_process_opened_before_the_rotation_wraps_no_new_key_under_the_old_master(world: World) -> None:
    stale = EvidenceService.open(world.root, "vault", clock=world.clock)
    try:
        world.evidence.rotate_master_key(world.owner, "rotate-1")
        with pytest.raises(Refusal) as refused:
            stale.append("scope:project/writer#new-partition", "r-1", {"x": 1})
        assert refused.value.code == "master_key_rotated"
    finally:
        stale.close()


def test_a_master_key_that_does_not_belong_to_the_database_fails_closed(world: World) -> None:
    world.evidence.rotate_master_key(world.owner, "rotate-1")
    world.rag.close()
    world.evidence.close()
    path = world.evidence.home.master_key_path
    path.chmod(0o600)
    path.write_bytes(b"z" * 32)
    with pytest.raises(Refusal) as refused:
        EvidenceService.open(world.root, "vault")
    assert refused.value.code == "master_key_mismatch"


# ---- crash injection in a real subprocess ----

@pytest.mark.parametrize("point", MASTER_CRASH_POINTS)
def test_a_rotation_killed_at_any_point_is_all_or_nothing_and_never_applied_twice(
        tmp_path: Path, point: str) -> None:
    cli(tmp_path, "owner.token", "owner", "init")
    cli(tmp_path, "owner.token", "owner", "grant", "--app-credential-file", str(tmp_path / "app.token"),
        "--operations", "report,read", "--days", "1")
    (tmp_path / "outcome.json").write_text(json.dumps({"run_id": "r", "task_id": "t", "status": "failed"}))
    kept = cli(tmp_path, "app.token", "report", "--file", str(tmp_path / "outcome.json"), "--key", "k-1")
    home = tmp_path / "homes" / "v1"
    cli(tmp_path, "owner.token", "owner", "rotate-master-key", "--rotation-id", "rotate-1",
        code=CRASH_EXIT, crash_at=point)
    committed = point in ("master-committed", "master-promoted")
    assert rotations(home) == (["master-rotation:rotate-1"] if committed else [])
    # a fresh process opens the vault (finishing or dropping the interrupted rotation) and reads
    read = cli(tmp_path, "app.token", "outcome", "--id", kept["outcome_id"])
    assert read["outcome_id"] == kept["outcome_id"]
    assert not (home / "master.key.next").exists()
    key_after_open = (home / "master.key").read_bytes()
    retry = cli(tmp_path, "owner.token", "owner", "rotate-master-key", "--rotation-id", "rotate-1")
    assert retry.get("replayed", False) is committed
    if committed:  # the retry found the rotation done: the key did not change again
        assert (home / "master.key").read_bytes() == key_after_open
    assert rotations(home) == ["master-rotation:rotate-1"]
    evidence = EvidenceService.open(tmp_path / "homes", "v1")
    try:
        assert evidence.format_found == ROTATED_FORMAT
        assert all(records is not None for records in everything(evidence).values())
    finally:
        evidence.close()
    done = cli(tmp_path, "app.token", "report", "--file", str(tmp_path / "outcome.json"), "--key", "k-2")
    assert done["verification"] == "unverified"


def test_a_key_file_a_killed_writer_left_half_way_is_swept_on_open(world: World, tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    orphan = temp_name(world.evidence.home.pending_master_key_path)
    orphan = orphan.with_name(orphan.name.replace(f"{os.getpid()}-", f"{dead.stdout.strip()}-"))
    orphan.write_bytes(b"k" * 32)
    world.rag.close()
    world.evidence.close()
    EvidenceService.open(world.root, "vault").close()
    assert not orphan.exists()


def test_the_rotation_commits_fully_synced_and_leaves_the_connection_as_it_was(world: World) -> None:
    db = world.evidence._db
    db.execute("PRAGMA synchronous=NORMAL")  # a relaxed durability setting
    with world.evidence._fully_synced():
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL for the rotation's commit
    world.evidence.rotate_master_key(world.owner, "rotate-1")
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 1
