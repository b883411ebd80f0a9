"""EvidenceService: append-only encrypted records in SQLite, anchored by encrypted checkpoints.

Every record lives in a *partition* (a vault scope such as ``rag:<scope>#receipts``). Each
partition has its own AES-256-GCM data key, wrapped by the home's master key; each record is
sealed with associated data naming its partition and id, so a record moved between rows or
partitions fails to open. Records are never updated or deleted.

Integrity: the records of a partition form a hash chain whose head (count, last sequence, root,
ciphertext bytes) is written, encrypted, to ``.feedback-checkpoints/`` outside the database on
every append. A deleted row, a removed checkpoint while records remain, or an older database
copied over the current one no longer matches its checkpoint, and the partition fails closed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from revetly_core.governed import crypto
from revetly_core.governed.evidence_db import EvidenceDatabase, integrity_refusal
from revetly_core.governed.home import Home, replace_private_file, require_owner_private
from revetly_core.isotime import utc_now
from revetly_core.refusal import Refusal

Clock = Callable[[], datetime]

MAX_RECORDS_PER_PARTITION = 10_000
MAX_CIPHERTEXT_PER_PARTITION = 64 * 1024 * 1024
MAX_MESSAGE_BYTES = 256 * 1024
FORMAT = "1"
CONTROL = "control"
_GENESIS = bytes(32)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS partitions (
    partition TEXT PRIMARY KEY, wrapped_key BLOB NOT NULL,
    count INTEGER NOT NULL, seq INTEGER NOT NULL, root BLOB NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    partition TEXT NOT NULL, record_id TEXT NOT NULL, seq INTEGER NOT NULL,
    ciphertext BLOB NOT NULL, PRIMARY KEY (partition, record_id));
CREATE UNIQUE INDEX IF NOT EXISTS records_by_seq ON records (partition, seq);
"""


@dataclass(frozen=True)
class Head:
    """The state a checkpoint anchors: how many records, the last sequence, the chain root, bytes."""

    count: int
    seq: int
    root: bytes
    bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "seq": self.seq, "root": self.root.hex(), "bytes": self.bytes}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Head:
        return cls(int(data["count"]), int(data["seq"]), bytes.fromhex(data["root"]), int(data["bytes"]))


def chain_step(root: bytes, record_id: str, ciphertext: bytes) -> bytes:
    """The next chain root: it commits to the previous root, the record id and its ciphertext."""
    ident = record_id.encode()
    return hashlib.sha256(root + len(ident).to_bytes(4, "big") + ident
                          + hashlib.sha256(ciphertext).digest()).digest()


def encode_message(payload: dict[str, Any]) -> bytes:
    """A record's plaintext: canonical JSON, refused above the 256 KiB contract-message bound."""
    data = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    if len(data) > MAX_MESSAGE_BYTES:
        raise Refusal("message_too_large",
                      f"a record of {len(data)} bytes exceeds the {MAX_MESSAGE_BYTES}-byte message bound",
                      "split the request into smaller parts")
    return data


def check_partition_quota(head: Head, ciphertext_len: int) -> None:
    """A partition holds at most 10,000 records and 64 MiB of ciphertext; beyond that, refuse."""
    if head.count + 1 > MAX_RECORDS_PER_PARTITION:
        raise Refusal("scope_record_quota_exhausted",
                      f"this scope already holds {head.count} records, the most it may retain",
                      "nothing was discarded; retention and compaction are owner work, not automatic")
    if head.bytes + ciphertext_len > MAX_CIPHERTEXT_PER_PARTITION:
        raise Refusal("scope_storage_quota_exhausted",
                      f"this scope's ciphertext would exceed {MAX_CIPHERTEXT_PER_PARTITION} bytes",
                      "nothing was discarded; retention and compaction are owner work, not automatic")


_SNAPSHOT_ATTEMPTS = 4


def _promote(pending: Path, committed: Path) -> None:
    """Make a pending checkpoint the committed one; another process may have done it already."""
    with suppress(FileNotFoundError):
        os.replace(pending, committed)


def _integrity(detail: str) -> Refusal:
    return integrity_refusal(detail)


class EvidenceService:
    """The encrypted evidence vault of one home. Thread-safe; one SQLite connection, one lock."""

    def __init__(self, home: Home, *, clock: Clock | None = None) -> None:
        self.home = home
        self.clock: Clock = clock or utc_now
        self._master = home.master_key()
        self._names_key = hmac.new(self._master, b"revetly-checkpoint-names", hashlib.sha256).digest()
        self._anchor_key = hmac.new(self._master, b"revetly-checkpoint-key", hashlib.sha256).digest()
        fresh = not home.database.exists()
        self._db = EvidenceDatabase(home.database)
        try:
            if not fresh:
                self._require_vault_database()
            if fresh:
                os.chmod(home.database, 0o600)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (FORMAT,))
            found = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0]
        except BaseException:
            self._db.close()
            raise
        if found != FORMAT:
            self._db.close()
            raise Refusal("vault_format", f"the vault is format {found}; this release reads {FORMAT}",
                          "use the release that wrote it")
        self._lock = threading.RLock()
        self._keys: dict[str, bytes] = {}
        self._verified: dict[str, Head] = {}
        self._control_cache: dict[str, dict[str, Any]] = {}
        from revetly_core.governed.principals import PrincipalRegistry

        self.principals = PrincipalRegistry(self)

    def _require_vault_database(self) -> None:
        """An existing evidence.db must hold the vault's tables before anything is written to
        it; an empty one is a set-up cut short only while no checkpoint exists."""
        tables = {row[0] for row in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'").fetchall()}
        if {"meta", "partitions", "records"} <= tables:
            return
        if tables or any(self.home.checkpoints.iterdir()):
            raise _integrity(f"the evidence database {self.home.database} holds no vault tables "
                             "while the home has checkpoints (a truncated or replaced database)")

    # ---- construction ----

    @classmethod
    def create(cls, root: Path | str, vault_id: str, *, clock: Clock | None = None
               ) -> tuple[EvidenceService, str]:
        """A new home and vault, and its owner credential (returned once, stored only as a hash)."""
        service = cls(Home.create(root, vault_id), clock=clock)
        return service, service.principals.create_owner()

    @classmethod
    def open(cls, root: Path | str, vault_id: str, *, clock: Clock | None = None) -> EvidenceService:
        """Open an existing home; permissions are checked before any key is read."""
        return cls(Home.open(root, vault_id), clock=clock)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- records ----

    def append(self, partition: str, record_id: str, payload: dict[str, Any]) -> None:
        """Seal and append one record; an existing id is refused (records are never rewritten)."""
        plaintext = encode_message(payload)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                head = self._checked_head(partition)
                if self._db.execute("SELECT 1 FROM records WHERE partition=? AND record_id=?",
                                    (partition, record_id)).fetchone():
                    raise Refusal("record_exists", f"record {record_id} already exists",
                                  "records are append-only; use a new id")
                key = self._data_key(partition, create=True)
                ciphertext = crypto.seal(key, plaintext, crypto.record_aad(partition, record_id))
                check_partition_quota(head, len(ciphertext))
                new = Head(head.count + 1, head.seq + 1, chain_step(head.root, record_id, ciphertext),
                           head.bytes + len(ciphertext))
                self._db.execute("INSERT INTO records VALUES (?,?,?,?)",
                                 (partition, record_id, new.seq, ciphertext))
                self._db.execute("UPDATE partitions SET count=?, seq=?, root=?, bytes=? WHERE partition=?",
                                 (new.count, new.seq, new.root, new.bytes, partition))
                pending = self._anchor_path(partition, pending=True)
                replace_private_file(pending, self._seal_anchor(partition, new))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                self._anchor_path(partition, pending=True).unlink(missing_ok=True)
                raise
            _promote(pending, self._anchor_path(partition))
            self._verified[partition] = new
            if partition == CONTROL:
                self._control_cache[record_id] = json.loads(plaintext)

    def get(self, partition: str, record_id: str) -> dict[str, Any] | None:
        """The decrypted payload of one record, or None when the partition has no such record."""
        with self._snapshot(partition):
            if partition == CONTROL and record_id in self._control_cache:
                return self._control_cache[record_id]
            row = self._db.execute("SELECT ciphertext FROM records WHERE partition=? AND record_id=?",
                                   (partition, record_id)).fetchone()
            if row is None:
                return None
            return self._open_record(partition, record_id, row[0])

    def records(self, partition: str, prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
        """All records of a partition whose id starts with prefix, in append order."""
        with self._snapshot(partition):
            rows = self._db.execute(
                "SELECT record_id, ciphertext FROM records WHERE partition=? AND record_id >= ? "
                "AND record_id < ? ORDER BY seq", (partition, prefix, prefix + "\U0010ffff")).fetchall()
            out = []
            for record_id, ciphertext in rows:
                if partition == CONTROL and record_id in self._control_cache:
                    out.append((record_id, self._control_cache[record_id]))
                else:
                    out.append((record_id, self._open_record(partition, record_id, ciphertext)))
            return out

    def usage(self, partition: str) -> dict[str, int]:
        """How much of its bounds a partition uses."""
        with self._snapshot(partition) as head:
            pass
        return {"records": head.count, "max_records": MAX_RECORDS_PER_PARTITION,
                "ciphertext_bytes": head.bytes, "max_ciphertext_bytes": MAX_CIPHERTEXT_PER_PARTITION}

    def verify(self, partition: str) -> dict[str, Any]:
        """Re-check a partition's whole chain against its checkpoint now (fails closed)."""
        with self._lock:
            self._verified.pop(partition, None)
            with self._snapshot(partition) as head:
                pass
        return {"partition": partition, "ok": True, **head.to_dict()}

    # ---- internals ----

    @contextmanager
    def _snapshot(self, partition: str) -> Iterator[Head]:
        """A read transaction over a checked partition. Another process may commit between our
        database snapshot and our read of its checkpoint, so a mismatch is re-checked on a fresh
        snapshot a few times before it is reported; real tampering persists and fails closed."""
        with self._lock:
            for attempt in range(_SNAPSHOT_ATTEMPTS):
                self._db.execute("BEGIN")
                try:
                    head = self._checked_head(partition)
                except Refusal as refusal:
                    self._db.execute("ROLLBACK")
                    if refusal.code != "evidence_integrity" or attempt == _SNAPSHOT_ATTEMPTS - 1:
                        raise
                    time.sleep(0.05 * (attempt + 1))
                    continue
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                try:
                    yield head
                finally:
                    self._db.execute("COMMIT")
                return

    def _open_record(self, partition: str, record_id: str, ciphertext: bytes) -> dict[str, Any]:
        key = self._data_key(partition, create=False)
        plain = crypto.unseal(key, ciphertext, crypto.record_aad(partition, record_id),
                              f"record {record_id}")
        payload: dict[str, Any] = json.loads(plain)
        if partition == CONTROL:
            self._control_cache[record_id] = payload
        return payload

    def _data_key(self, partition: str, *, create: bool) -> bytes:
        if partition in self._keys:
            return self._keys[partition]
        row = self._db.execute("SELECT wrapped_key FROM partitions WHERE partition=?",
                               (partition,)).fetchone()
        if row is None:
            if not create:
                raise _integrity(f"partition {partition} has records but no data key")
            key = crypto.new_key()
            wrapped = crypto.seal(self._master, key, crypto.wrap_aad(partition))
            self._db.execute("INSERT INTO partitions VALUES (?,?,0,0,?,0)", (partition, wrapped, _GENESIS))
        else:
            key = crypto.unseal(self._master, row[0], crypto.wrap_aad(partition), f"data key of {partition}")
        self._keys[partition] = key
        return key

    def _anchor_path(self, partition: str, *, pending: bool = False) -> Path:
        name = hmac.new(self._names_key, partition.encode(), hashlib.sha256).hexdigest()[:40]
        return self.home.checkpoints / (name + (".pending" if pending else ".ckpt"))

    def _seal_anchor(self, partition: str, head: Head) -> bytes:
        body = json.dumps({"partition": partition, **head.to_dict()}, sort_keys=True).encode()
        return crypto.seal(self._anchor_key, body, crypto.checkpoint_aad(partition))

    def _read_anchor(self, path: Path, partition: str) -> Head:
        require_owner_private(path, "checkpoint")
        body = crypto.unseal(self._anchor_key, path.read_bytes(), crypto.checkpoint_aad(partition),
                             f"checkpoint of {partition}")
        return Head.from_dict(json.loads(body))

    def _db_head(self, partition: str) -> Head | None:
        row = self._db.execute("SELECT count, seq, root, bytes FROM partitions WHERE partition=?",
                               (partition,)).fetchone()
        return None if row is None else Head(row[0], row[1], bytes(row[2]), row[3])

    def _rows_summary(self, partition: str) -> tuple[int, int, int]:
        row = self._db.execute("SELECT count(*), coalesce(max(seq), 0), coalesce(sum(length(ciphertext)), 0) "
                               "FROM records WHERE partition=?", (partition,)).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def _anchored_head(self, partition: str, db_head: Head | None) -> Head | None:
        """The checkpointed head, resolving a pending checkpoint left by a crash around commit."""
        committed, pending = self._anchor_path(partition), self._anchor_path(partition, pending=True)
        if pending.exists():
            try:
                candidate = self._read_anchor(pending, partition)
            except FileNotFoundError:  # its writer just promoted it
                candidate = None
            if candidate is not None and db_head == candidate:
                _promote(pending, committed)
                return candidate
            # otherwise it belongs to a commit that never happened, or to one in flight in another
            # process: leave it to its writer (the next append replaces it)
        if not committed.exists():
            return None
        return self._read_anchor(committed, partition)

    def _checked_head(self, partition: str) -> Head:
        """The partition's head after the integrity checks; any mismatch fails closed."""
        db_head = self._db_head(partition)
        anchored = self._anchored_head(partition, db_head)
        count, seq, total = self._rows_summary(partition)
        if anchored is None:
            if count or (db_head is not None and db_head.count):
                raise _integrity(f"partition {partition} holds records but its checkpoint is missing")
            return db_head or Head(0, 0, _GENESIS, 0)
        if db_head is None or db_head != anchored:
            raise _integrity(f"the database of partition {partition} does not match its checkpoint "
                             "(an older or altered database)")
        if (count, seq, total) != (anchored.count, anchored.seq, anchored.bytes):
            raise _integrity(f"partition {partition} lost or gained rows since its checkpoint")
        if self._verified.get(partition) != anchored:
            self._verify_chain(partition, anchored)
        return anchored

    def _verify_chain(self, partition: str, anchored: Head) -> None:
        root = _GENESIS
        for record_id, ciphertext in self._db.execute(
                "SELECT record_id, ciphertext FROM records WHERE partition=? ORDER BY seq", (partition,)):
            root = chain_step(root, record_id, ciphertext)
        if root != anchored.root:
            raise _integrity(f"the records of partition {partition} do not match its checkpoint chain")
        self._verified[partition] = anchored
