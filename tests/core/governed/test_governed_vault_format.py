"""Vault format 2: key ids per record, data-key rotation, upgrade of format 1, batched appends,
cached integrity checks and owner erasure with content-free anchors (ADR 0035)."""

from __future__ import annotations

import hashlib
import hmac
import shutil
import sqlite3
from pathlib import Path

import pytest
from revetly_core.governed.vault import FORMAT, upgrade_statements

from revetly_core import EvidenceService, Refusal


@pytest.fixture()
def vault(tmp_path: Path) -> tuple[EvidenceService, str]:
    return EvidenceService.create(tmp_path, "v")


def _reopen(evidence: EvidenceService) -> EvidenceService:
    evidence.close()
    return EvidenceService.open(evidence.home.path.parent, evidence.home.path.name)


def _downgrade_to_format_1(evidence: EvidenceService) -> None:
    """Rewrite a closed vault's database to the format-1 layout (no key ids, no key table)."""
    evidence.close()
    with sqlite3.connect(evidence.home.database) as db:
        db.execute("ALTER TABLE records DROP COLUMN key_id")
        db.execute("DROP TABLE partition_keys")
        db.execute("DROP TABLE erased")
        db.execute("UPDATE meta SET value='1' WHERE key='format'")


def _checkpoint_of(evidence: EvidenceService, partition: str) -> Path:
    """The committed checkpoint file of one partition (named by a keyed hash of the partition)."""
    names_key = hmac.new(evidence.home.master_key(), b"revetly-checkpoint-names", hashlib.sha256).digest()
    name = hmac.new(names_key, partition.encode(), hashlib.sha256).hexdigest()[:40]
    return evidence.home.checkpoints / f"{name}.ckpt"


def _format_of(evidence: EvidenceService) -> str:
    with sqlite3.connect(evidence.home.database) as db:
        return str(db.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0])


def test_a_new_vault_is_written_in_the_current_format(vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    evidence.append("p", "r1", {"n": 1})
    assert _format_of(evidence) == FORMAT == "2"
    assert evidence.key_ids("p") == [1]


def test_a_format_1_vault_opens_after_the_upgrade_with_every_record(
        vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    evidence.append("p", "r1", {"n": 1})
    evidence.append("control-like", "r2", {"n": 2})
    root = evidence.verify("p")["root"]
    _downgrade_to_format_1(evidence)
    upgraded = EvidenceService.open(evidence.home.path.parent, "v")
    assert upgraded.format_found == "1"
    assert _format_of(upgraded) == "2"
    assert upgraded.get("p", "r1") == {"n": 1}
    assert upgraded.get("control-like", "r2") == {"n": 2}
    assert upgraded.verify("p")["root"] == root  # chains and checkpoints are untouched
    upgraded.append("p", "r3", {"n": 3})
    assert [r for r, _ in _reopen(upgraded).records("p")] == ["r1", "r3"]


def test_upgrade_statements_are_empty_for_the_current_format() -> None:
    assert upgrade_statements(FORMAT) == []
    assert upgrade_statements("1")


def test_a_format_this_release_does_not_know_is_refused_unchanged(
        vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    evidence.close()
    with sqlite3.connect(evidence.home.database) as db:
        db.execute("UPDATE meta SET value='9' WHERE key='format'")
    with pytest.raises(Refusal) as refused:
        EvidenceService.open(evidence.home.path.parent, "v")
    assert refused.value.code == "vault_format"
    assert _format_of(evidence) == "9"


def test_records_sealed_before_a_rotation_open_after_it(vault: tuple[EvidenceService, str]) -> None:
    evidence, owner = vault
    evidence.append("p", "old", {"n": 1})
    before = evidence.verify("p")
    answer = evidence.rotate_data_keys(owner)
    assert answer["rotated"]["p"] == 2
    assert evidence.verify("p") == before  # rotation preserves roots and checkpoints
    evidence.append("p", "new", {"n": 2})
    again = _reopen(evidence)
    assert again.key_ids("p") == [1, 2]
    assert again.get("p", "old") == {"n": 1} and again.get("p", "new") == {"n": 2}
    with sqlite3.connect(again.home.database) as db:
        keys = dict(db.execute("SELECT record_id, key_id FROM records WHERE partition='p'").fetchall())
    assert keys == {"old": 1, "new": 2}


def test_a_format_1_vault_opens_after_an_upgrade_and_a_rotation(vault: tuple[EvidenceService, str]) -> None:
    evidence, owner = vault
    evidence.append("p", "r1", {"n": 1})
    _downgrade_to_format_1(evidence)
    upgraded = EvidenceService.open(evidence.home.path.parent, "v")
    upgraded.rotate_data_keys(owner, ["p"])
    upgraded.append("p", "r2", {"n": 2})
    again = _reopen(upgraded)
    assert [payload for _, payload in again.records("p")] == [{"n": 1}, {"n": 2}]


def test_rotation_is_owner_only_and_names_existing_partitions(vault: tuple[EvidenceService, str]) -> None:
    evidence, owner = vault
    evidence.append("p", "r1", {"n": 1})
    with pytest.raises(Refusal) as refused:
        evidence.rotate_data_keys("not-the-owner")
    assert refused.value.code in {"not_owner", "bad_credential", "not_authorized"}
    with pytest.raises(Refusal) as missing:
        evidence.rotate_data_keys(owner, ["nowhere"])
    assert missing.value.code == "no_partition"
    assert evidence.key_ids("p") == [1]


def test_a_key_row_removed_after_rotation_fails_closed(vault: tuple[EvidenceService, str]) -> None:
    evidence, owner = vault
    evidence.append("p", "r1", {"n": 1})
    evidence.rotate_data_keys(owner)
    evidence.close()
    with sqlite3.connect(evidence.home.database) as db:
        db.execute("DELETE FROM partition_keys WHERE partition='p' AND key_id=1")
    again = EvidenceService.open(evidence.home.path.parent, "v")
    with pytest.raises(Refusal) as refused:
        again.get("p", "r1")
    assert refused.value.code == "evidence_integrity"


def test_a_batch_is_retained_whole_or_not_at_all(vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    evidence.append("p", "taken", {"n": 0})
    with pytest.raises(Refusal) as refused:
        evidence.append_many("p", [("a", {"n": 1}), ("taken", {"n": 2})])
    assert refused.value.code == "record_exists"
    assert evidence.get("p", "a") is None
    evidence.append_many("p", [("a", {"n": 1}), ("b", {"n": 2})])
    assert [r for r, _ in _reopen(evidence).records("p")] == ["taken", "a", "b"]


def test_a_batch_with_a_repeated_id_is_refused(vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    with pytest.raises(Refusal) as refused:
        evidence.append_many("p", [("a", {"n": 1}), ("a", {"n": 2})])
    assert refused.value.code == "bad_batch"


def test_a_checkpoint_swapped_under_a_cached_check_is_still_caught(
        vault: tuple[EvidenceService, str], tmp_path: Path) -> None:
    evidence, _ = vault
    evidence.append("p", "r1", {"n": 1})
    checkpoint = _checkpoint_of(evidence, "p")
    assert checkpoint.exists()
    saved = tmp_path / "old.ckpt"
    shutil.copy2(checkpoint, saved)
    evidence.append("p", "r2", {"n": 2})
    assert evidence.get("p", "r2") == {"n": 2}  # the check is now cached
    shutil.copy2(saved, checkpoint)
    with pytest.raises(Refusal) as refused:
        evidence.get("p", "r1")
    assert refused.value.code == "evidence_integrity"


def test_a_row_deleted_by_another_connection_under_a_cached_check_is_still_caught(
        vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    evidence.append("p", "r1", {"n": 1})
    evidence.append("p", "r2", {"n": 2})
    assert evidence.get("p", "r1") == {"n": 1}
    with sqlite3.connect(evidence.home.database) as db:
        db.execute("DELETE FROM records WHERE record_id='r2'")
    with pytest.raises(Refusal) as refused:
        evidence.get("p", "r1")
    assert refused.value.code == "evidence_integrity"


def test_an_erased_partition_keeps_only_its_ids_as_anchors(vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    evidence.append("p", "r1", {"text": "a forgettable sentence"})
    evidence.append("other", "r1", {"text": "kept"})
    assert evidence.erase_partition("p") == {"partition": "p", "erased_records": 1}
    again = _reopen(evidence)
    with pytest.raises(Refusal) as read:
        again.get("p", "r1")
    assert read.value.code == "record_forgotten"
    with pytest.raises(Refusal) as rewrite:
        again.append("p", "r1", {"text": "back"})
    assert rewrite.value.code == "record_forgotten"
    assert again.records("p") == [] and again.key_ids("p") == []
    again.append("p", "r2", {"text": "new"})
    assert again.verify("p")["count"] == 1
    assert again.get("other", "r1") == {"text": "kept"}
    again.close()
    for path in again.home.path.rglob("*"):
        if path.is_file():
            assert b"forgettable" not in path.read_bytes()


def test_an_older_database_copied_over_an_erasure_fails_closed(
        vault: tuple[EvidenceService, str], tmp_path: Path) -> None:
    evidence, _ = vault
    evidence.append("p", "r1", {"n": 1})
    evidence.close()
    shutil.copy2(evidence.home.database, tmp_path / "old.db")
    evidence = EvidenceService.open(evidence.home.path.parent, "v")
    evidence.erase_partition("p")
    evidence.close()
    shutil.copy2(tmp_path / "old.db", evidence.home.database)
    again = EvidenceService.open(evidence.home.path.parent, "v")
    with pytest.raises(Refusal) as refused:
        again.records("p")
    assert refused.value.code == "evidence_integrity"


def test_a_key_id_is_never_reused_after_an_erasure_so_other_processes_stay_correct(
        vault: tuple[EvidenceService, str]) -> None:
    evidence, _ = vault
    evidence.append("p", "r1", {"n": 1})
    other = EvidenceService.open(evidence.home.path.parent, "v")
    assert other.get("p", "r1") == {"n": 1}  # the other service now holds key 1 in memory
    evidence.erase_partition("p")
    evidence.append("p", "r2", {"n": 2})
    assert evidence.key_ids("p") == [2]
    assert other.get("p", "r2") == {"n": 2}
    other.close()

