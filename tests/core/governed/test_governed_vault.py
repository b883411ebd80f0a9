"""The vault: real AES-GCM and SQLite; every kind of tampering fails closed."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from revetly_core.governed import vault as vault_module
from revetly_core.governed.vault import Head, check_partition_quota, encode_message

from revetly_core import EvidenceService, Refusal


@pytest.fixture()
def vault(tmp_path: Path) -> EvidenceService:
    evidence, _ = EvidenceService.create(tmp_path, "v")
    return evidence


def _reopen(evidence: EvidenceService) -> EvidenceService:
    evidence.close()
    return EvidenceService.open(evidence.home.path.parent, evidence.home.path.name)


def _sql(evidence: EvidenceService, statement: str, *args: object) -> None:
    with sqlite3.connect(evidence.home.database) as db:
        db.execute(statement, args)


def test_records_round_trip_and_are_encrypted_on_disk(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"text": "a very distinctive sentence"})
    assert vault.get("p", "r1") == {"text": "a very distinctive sentence"}
    again = _reopen(vault)
    assert again.get("p", "r1") == {"text": "a very distinctive sentence"}
    again.close()
    for path in again.home.path.rglob("*"):
        if path.is_file():
            assert b"distinctive" not in path.read_bytes()


def test_records_are_append_only(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    with pytest.raises(Refusal) as refused:
        vault.append("p", "r1", {"n": 2})
    assert refused.value.code == "record_exists"
    assert vault.get("p", "r1") == {"n": 1}


def test_a_flipped_ciphertext_byte_fails_closed(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    vault.close()
    with sqlite3.connect(vault.home.database) as db:
        (blob,) = db.execute("SELECT ciphertext FROM records WHERE record_id='r1'").fetchone()
        flipped = bytearray(blob)
        flipped[20] ^= 0x01
        db.execute("UPDATE records SET ciphertext=? WHERE record_id='r1'", (bytes(flipped),))
    again = EvidenceService.open(vault.home.path.parent, "v")
    with pytest.raises(Refusal) as refused:
        again.get("p", "r1")
    assert refused.value.code in {"evidence_integrity", "evidence_tampered"}


def test_a_record_moved_to_another_id_does_not_open(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    _sql(vault, "UPDATE records SET record_id='r2' WHERE record_id='r1'")
    fresh = _reopen(vault)
    with pytest.raises(Refusal) as refused:
        fresh.get("p", "r2")
    assert refused.value.code in {"evidence_integrity", "evidence_tampered"}


def test_a_deleted_row_fails_closed(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    vault.append("p", "r2", {"n": 2})
    _sql(vault, "DELETE FROM records WHERE record_id='r1'")
    with pytest.raises(Refusal) as refused:
        vault.get("p", "r2")
    assert refused.value.code == "evidence_integrity"


def test_a_deleted_row_with_a_doctored_head_still_fails_closed(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    vault.append("p", "r2", {"n": 2})
    _sql(vault, "DELETE FROM records WHERE record_id='r2'")
    _sql(vault, "UPDATE partitions SET count=1, seq=1 WHERE partition='p'")
    with pytest.raises(Refusal) as refused:
        vault.records("p")
    assert refused.value.code == "evidence_integrity"


def test_a_removed_checkpoint_while_records_remain_fails_closed(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    for anchor in vault.home.checkpoints.iterdir():
        anchor.unlink()
    with pytest.raises(Refusal) as refused:
        vault.get("p", "r1")
    assert refused.value.code == "evidence_integrity"


def test_an_older_database_copied_over_fails_closed(vault: EvidenceService, tmp_path: Path) -> None:
    vault.append("p", "r1", {"n": 1})
    vault.close()
    old_copy = tmp_path / "old.db"
    shutil.copy(vault.home.database, old_copy)
    newer = EvidenceService.open(vault.home.path.parent, "v")
    newer.append("p", "r2", {"n": 2})
    newer.close()
    for suffix in ("-wal", "-shm"):
        Path(str(newer.home.database) + suffix).unlink(missing_ok=True)
    shutil.copy(old_copy, newer.home.database)
    restored = EvidenceService.open(vault.home.path.parent, "v")
    with pytest.raises(Refusal) as refused:
        restored.get("p", "r1")
    assert refused.value.code == "evidence_integrity"


def test_a_database_missing_a_checkpointed_partition_fails_closed(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    _sql(vault, "DELETE FROM records WHERE partition='p'")
    _sql(vault, "DELETE FROM partitions WHERE partition='p'")
    fresh = _reopen(vault)
    with pytest.raises(Refusal) as refused:
        fresh.records("p")
    assert refused.value.code == "evidence_integrity"


def test_a_pending_checkpoint_that_matches_the_database_is_promoted(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    committed = vault._anchor_path("p")
    first_anchor = committed.read_bytes()
    vault.append("p", "r2", {"n": 2})
    vault.close()
    # a crash after the SQLite commit, before the rename: the new anchor is still pending
    pending = committed.with_suffix(".pending")
    committed.rename(pending)
    committed.write_bytes(first_anchor)
    committed.chmod(0o600)
    older = EvidenceService.open(vault.home.path.parent, "v")
    assert [rid for rid, _ in older.records("p")] == ["r1", "r2"]
    assert not pending.exists()


def test_a_pending_checkpoint_that_does_not_match_is_ignored(
        vault: EvidenceService, tmp_path: Path) -> None:
    vault.append("p", "r1", {"n": 1})
    committed = vault._anchor_path("p")
    first_anchor = committed.read_bytes()
    vault.close()
    shutil.copy(vault.home.database, tmp_path / "before.db")
    again = EvidenceService.open(vault.home.path.parent, "v")
    again.append("p", "r2", {"n": 2})
    again.close()
    # a crash before the SQLite commit of r2: the database and the committed anchor hold r1,
    # the anchor for r2 is still pending
    pending = committed.with_suffix(".pending")
    committed.rename(pending)
    committed.write_bytes(first_anchor)
    committed.chmod(0o600)
    for suffix in ("-wal", "-shm"):
        Path(str(vault.home.database) + suffix).unlink(missing_ok=True)
    shutil.copy(tmp_path / "before.db", vault.home.database)
    recovered = EvidenceService.open(vault.home.path.parent, "v")
    assert [rid for rid, _ in recovered.records("p")] == ["r1"]
    # a stray pending anchor is left to writers (it may be another process's commit in flight);
    # the next append replaces and promotes it
    recovered.append("p", "r3", {"n": 3})
    assert not pending.exists()
    assert [rid for rid, _ in _reopen(recovered).records("p")] == ["r1", "r3"]


def test_verify_rechecks_the_whole_chain(vault: EvidenceService) -> None:
    vault.append("p", "r1", {"n": 1})
    assert vault.verify("p")["count"] == 1


def test_messages_over_256_kib_are_refused() -> None:
    with pytest.raises(Refusal) as refused:
        encode_message({"x": "a" * (256 * 1024)})
    assert refused.value.code == "message_too_large"


def test_the_record_quota_is_10000_per_partition() -> None:
    check_partition_quota(Head(9_999, 9_999, bytes(32), 0), 100)
    with pytest.raises(Refusal) as refused:
        check_partition_quota(Head(10_000, 10_000, bytes(32), 0), 100)
    assert refused.value.code == "scope_record_quota_exhausted"


def test_the_ciphertext_quota_is_64_mib_per_partition() -> None:
    check_partition_quota(Head(1, 1, bytes(32), 64 * 1024 * 1024 - 100), 100)
    with pytest.raises(Refusal) as refused:
        check_partition_quota(Head(1, 1, bytes(32), 64 * 1024 * 1024 - 100), 101)
    assert refused.value.code == "scope_storage_quota_exhausted"


def test_an_exhausted_partition_refuses_and_keeps_what_it_holds(
        vault: EvidenceService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vault_module, "MAX_RECORDS_PER_PARTITION", 2)
    vault.append("p", "r1", {"n": 1})
    vault.append("p", "r2", {"n": 2})
    with pytest.raises(Refusal) as refused:
        vault.append("p", "r3", {"n": 3})
    assert refused.value.code == "scope_record_quota_exhausted"
    assert [rid for rid, _ in vault.records("p")] == ["r1", "r2"]
    vault.append("other", "r3", {"n": 3})


def test_two_processes_appending_to_one_partition_stay_consistent(tmp_path: Path) -> None:
    import subprocess
    import sys

    evidence, _ = EvidenceService.create(tmp_path, "v")
    evidence.close()
    script = ("import sys; from revetly_core import EvidenceService\n"
              "e = EvidenceService.open(sys.argv[1], 'v')\n"
              "for i in range(40):\n"
              "    e.append('shared', f'{sys.argv[2]}-{i}', {'i': i})\n"
              "    e.records('shared')\n")
    writers = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path), name]) for name in "ab"]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    again = EvidenceService.open(tmp_path, "v")
    assert again.verify("shared")["count"] == 80
