"""EvidenceService: append-only encrypted records in SQLite, anchored by encrypted checkpoints.

Every record lives in a *partition* (a vault scope such as ``rag:<scope>#receipts``). Each
partition has its own AES-256-GCM data key, wrapped by the home's master key; each record is
sealed with associated data naming its partition and id, so a record moved between rows or
partitions fails to open. Records are never updated or deleted.

Format and keys: the database names its format in ``meta``. Format 2 gives each record the id
of the partition data key that sealed it (``records.key_id``); ``rotate_data_keys`` adds a new
key per partition and seals later records with it, so old records keep opening under their own
key while ciphertext, chain roots and checkpoints stay exactly as they were. A format-1 vault is
upgraded in place on open (its records become key 1). A format this release does not know is
refused, never rewritten.

Integrity: the records of a partition form a hash chain whose head (count, last sequence, root,
ciphertext bytes) is written, encrypted, to ``.feedback-checkpoints/`` outside the database on
every append. A deleted row, a removed checkpoint while records remain, or an older database
copied over the current one no longer matches its checkpoint, and the partition fails closed.
Within one process a partition's checks are not repeated while nothing they depend on can have
changed: no other connection committed (SQLite's ``data_version``) and the checkpoint files hold
the same bytes (a few hundred, read on every access; only decryption, the row summary and the
chain walk are skipped). ``verify`` always re-checks everything.

Master-key rotation (format 3): ``rotate_master_key`` re-wraps every data key under a new
master key in one SQLite transaction that also seals the *checkpoint identity* (the key the
checkpoint names and anchors derive from, until then the master key itself) under the new key
and records the new key's fingerprint. The new key is first written beside the old one
(``master.key.next``); once the transaction commits it is renamed over ``master.key``. Opening a
vault resolves a rotation a crash interrupted: the key whose fingerprint the database records is
the master key, so an uncommitted rotation is dropped and a committed one is finished, and a
retry with the same rotation id returns the retained rotation rather than rotating twice.
Ciphertext, chain roots and checkpoints are untouched.

Erasure (owner recovery only): ``erase_partition`` removes a partition's records and data keys
with SQLite's secure delete, keeps each erased record id as a content-free anchor (reading or
re-appending it is the ``record_forgotten`` refusal) and re-anchors the emptied partition.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from revetly_core.governed import crypto
from revetly_core.governed.evidence_db import (
    DEFAULT_DURABILITY,
    Durability,
    EvidenceDatabase,
    integrity_refusal,
    write_anchor,
)
from revetly_core.governed.home import (
    Home,
    read_private_file,
    replace_private_file,
    require_owner_private,
    sync_folder,
)
from revetly_core.isotime import utc_now
from revetly_core.refusal import Refusal
from revetly_core.writes.crash import crash_point
from revetly_core.writes.files import sweep_temp_files

Clock = Callable[[], datetime]

MAX_RECORDS_PER_PARTITION = 10_000
MAX_CIPHERTEXT_PER_PARTITION = 64 * 1024 * 1024
MAX_MESSAGE_BYTES = 256 * 1024
FORMAT = "2"
ROTATED_FORMAT = "3"
"""The format of a vault whose master key was rotated (its checkpoint identity sealed in meta);
a release that reads only 1 and 2 refuses it rather than deriving the wrong checkpoint key."""
READABLE_FORMATS = ("1", "2", "3")
"""Formats this release opens; format 1 is upgraded in place to FORMAT."""
MASTER_CRASH_POINTS = ("master-next-written", "master-rewrapped", "master-committed", "master-promoted")
"""Fault-injection points of a master-key rotation: the new key written beside the old one; every
data key re-wrapped, not committed; committed, the new key not yet in place; the new key in
place, the answer not yet returned."""
CONTROL = "control"
_GENESIS = bytes(32)
_EVENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS partitions (
    partition TEXT PRIMARY KEY, wrapped_key BLOB NOT NULL,
    count INTEGER NOT NULL, seq INTEGER NOT NULL, root BLOB NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    partition TEXT NOT NULL, record_id TEXT NOT NULL, seq INTEGER NOT NULL,
    ciphertext BLOB NOT NULL, key_id INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (partition, record_id));
CREATE UNIQUE INDEX IF NOT EXISTS records_by_seq ON records (partition, seq);
"""

_SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS partition_keys (
    partition TEXT NOT NULL, key_id INTEGER NOT NULL, wrapped_key BLOB NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (partition, key_id));
CREATE TABLE IF NOT EXISTS erased (
    partition TEXT NOT NULL, record_id TEXT NOT NULL, erased_at TEXT NOT NULL,
    PRIMARY KEY (partition, record_id));
"""


def master_fingerprint(master: bytes) -> str:
    """The content-free name of a master key the database records (an HMAC, not the key)."""
    return hmac.new(master, b"revetly-master-fingerprint", hashlib.sha256).hexdigest()


def identity_aad() -> bytes:
    """The associated data binding the sealed checkpoint identity to its role."""
    return b"revetly-checkpoint-identity"


def resolve_master(current: bytes, pending: bytes | None, recorded: str | None) -> tuple[bytes, str]:
    """Which key is the master key after a rotation that may have been interrupted, and what to do
    with ``master.key.next``: ``keep-current`` (no rotation pending), ``drop-next`` (a rotation
    that never committed), ``promote-next`` (a committed rotation whose rename did not happen).
    A database naming neither key is a refusal (fail closed)."""
    if recorded is None or hmac.compare_digest(recorded, master_fingerprint(current)):
        return current, "keep-current" if pending is None else "drop-next"
    if pending is not None and hmac.compare_digest(recorded, master_fingerprint(pending)):
        return pending, "promote-next"
    raise Refusal("master_key_mismatch", "the home's master key is not the key this vault's data keys "
                  "are wrapped under", "restore the master key that belongs with this database")


def check_rotation_id(rotation_id: str) -> str:
    """A rotation id is 1-64 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit."""
    if not isinstance(rotation_id, str) or not _EVENT_ID.match(rotation_id):
        raise Refusal("bad_rotation_id", f"{rotation_id!r} is not a rotation id",
                      "use 1-64 characters from A-Z a-z 0-9 . _ - starting with a letter or digit")
    return rotation_id


def upgrade_statements(found: str) -> list[str]:
    """The statements that bring a vault of an older format to FORMAT (none when current)."""
    if found == "1":
        return [
            "ALTER TABLE records ADD COLUMN key_id INTEGER NOT NULL DEFAULT 1",
            "INSERT OR IGNORE INTO partition_keys SELECT partition, 1, wrapped_key, '' FROM partitions",
            f"UPDATE meta SET value='{FORMAT}' WHERE key='format'",
        ]
    return []


def _forgotten(partition: str, record_id: str) -> Refusal:
    return Refusal("record_forgotten",
                   f"record {record_id} of {partition} was erased by the owner; only its id is kept",
                   "use a new idempotency key or id; erased evidence is never brought back")


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

    def __init__(self, home: Home, *, clock: Clock | None = None,
                 durability: Durability = DEFAULT_DURABILITY) -> None:
        self.home = home
        self.clock: Clock = clock or utc_now
        current_master = home.master_key()
        fresh = not home.database.exists()
        self._db = EvidenceDatabase(home.database, durability)
        try:
            if not fresh:
                self._require_vault_database()
            if fresh:
                os.chmod(home.database, 0o600)
            self._db.set_durability()
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (FORMAT,))
            found = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0]
            if found in READABLE_FORMATS:
                self._upgrade(found)
                self._master = self._resolve_master(current_master)
                self._identity = self._checkpoint_identity()
        except BaseException:
            self._db.close()
            raise
        if found not in READABLE_FORMATS:
            self._db.close()
            raise Refusal("vault_format", f"the vault is format {found}; this release reads "
                          f"{', '.join(READABLE_FORMATS)}", "use the release that wrote it")
        self._names_key = hmac.new(self._identity, b"revetly-checkpoint-names", hashlib.sha256).digest()
        self._anchor_key = hmac.new(self._identity, b"revetly-checkpoint-key", hashlib.sha256).digest()
        self.format_found = found
        self._lock = threading.RLock()
        self._keys: dict[tuple[str, int], bytes] = {}
        self._verified: dict[str, Head] = {}
        self._fresh: dict[str, tuple[object, ...]] = {}
        self._anchor_paths: dict[tuple[str, bool], Path] = {}
        self._control_cache: dict[str, dict[str, Any]] = {}
        from revetly_core.governed.principals import PrincipalRegistry

        self.principals = PrincipalRegistry(self)

    def _upgrade(self, found: str) -> None:
        """Bring an older format to FORMAT in one transaction; records and chains are untouched."""
        self._db.executescript(_SCHEMA_2)
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for statement in upgrade_statements(found):
                self._db.execute(statement)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _resolve_master(self, current: bytes) -> bytes:
        """The master key, finishing or dropping a rotation a crash interrupted (resolve_master).
        A pending key is judged under the write lock, which a rotation holds from before it
        writes its key to after it commits, so a rotation in flight is never mistaken for one
        that died. A key file a killed writer left half-way (a dead writer's temp file) is
        removed first: it never wrapped anything."""
        sweep_temp_files(self.home.path)
        pending_path = self.home.pending_master_key_path
        if not pending_path.exists():
            try:
                return resolve_master(current, None, self._meta("master_fingerprint"))[0]
            except Refusal:  # a rotation elsewhere may have renamed its key in since we read ours
                return resolve_master(self.home.master_key(), None, self._meta("master_fingerprint"))[0]
        self._db.execute("BEGIN IMMEDIATE")
        try:
            current = self.home.master_key()
            pending = read_private_file(pending_path, "pending master key") if pending_path.exists() else None
            master, action = resolve_master(current, pending, self._meta("master_fingerprint"))
            if action == "drop-next":
                pending_path.unlink(missing_ok=True)
            elif action == "promote-next":
                _promote(pending_path, self.home.master_key_path)
            sync_folder(self.home.path)
        finally:
            self._db.execute("COMMIT")
        return master

    def _checkpoint_identity(self) -> bytes:
        """The key checkpoints derive from: the master key until the first master rotation, then
        the identity sealed in meta under the current master key (it never changes)."""
        sealed = self._meta("checkpoint_identity")
        if sealed is None:
            return self._master
        return crypto.unseal(self._master, bytes.fromhex(sealed), identity_aad(), "checkpoint identity")

    def _require_current_master(self) -> None:
        """Inside a write transaction: refuse to wrap a new data key under a master key another
        process has rotated away since this one opened the vault."""
        recorded = self._meta("master_fingerprint")
        if recorded is not None and not hmac.compare_digest(recorded, master_fingerprint(self._master)):
            raise Refusal("master_key_rotated", "the vault's master key was rotated since it was opened here",
                          "close and open the vault again")

    def derived_key(self, label: bytes) -> bytes:
        """A key for one purpose derived from the checkpoint identity (stable across rotations)."""
        return hmac.new(self._identity, b"revetly-derived\x00" + label, hashlib.sha256).digest()

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
    def create(cls, root: Path | str, vault_id: str, *, clock: Clock | None = None,
               durability: Durability = DEFAULT_DURABILITY) -> tuple[EvidenceService, str]:
        """A new home and vault, and its owner credential (returned once, stored only as a hash)."""
        service = cls(Home.create(root, vault_id), clock=clock, durability=durability)
        from revetly_core.governed.adoption import bind_new_home

        bind_new_home(service)
        return service, service.principals.create_owner()

    @classmethod
    def open(cls, root: Path | str, vault_id: str, *, clock: Clock | None = None,
             durability: Durability = DEFAULT_DURABILITY) -> EvidenceService:
        """Open an existing home; permissions are checked before any key is read."""
        return cls(Home.open(root, vault_id), clock=clock, durability=durability)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- records ----

    def append(self, partition: str, record_id: str, payload: dict[str, Any]) -> None:
        """Seal and append one record; an existing id is refused (records are never rewritten)."""
        self.append_many(partition, [(record_id, payload)])

    def append_many(self, partition: str, items: list[tuple[str, dict[str, Any]]], *,
                    crash_before_commit: str | None = None) -> None:
        """Seal and append several records of one partition in one durable commit (one
        checkpoint): all of them are retained or none. Any existing id refuses the whole batch.
        crash_before_commit names the caller's fault-injection point inside the transaction."""
        sealed_plain = [(record_id, encode_message(payload)) for record_id, payload in items]
        if not sealed_plain or len({r for r, _ in sealed_plain}) != len(sealed_plain):
            raise Refusal("bad_batch", "a batch holds one or more records with distinct ids",
                          "append each record id once")
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                head = self._checked_head(partition)
                new = head
                for record_id, plaintext in sealed_plain:
                    self._refuse_existing(partition, record_id)
                    key_id, key = self._sealing_key(partition)
                    ciphertext = crypto.seal(key, plaintext, crypto.record_aad(partition, record_id))
                    check_partition_quota(new, len(ciphertext))
                    new = Head(new.count + 1, new.seq + 1, chain_step(new.root, record_id, ciphertext),
                               new.bytes + len(ciphertext))
                    self._db.execute("INSERT INTO records (partition, record_id, seq, ciphertext, key_id) "
                                     "VALUES (?,?,?,?,?)",
                                     (partition, record_id, new.seq, ciphertext, key_id))
                self._db.execute("UPDATE partitions SET count=?, seq=?, root=?, bytes=? WHERE partition=?",
                                 (new.count, new.seq, new.root, new.bytes, partition))
                pending = self._anchor_path(partition, pending=True)
                write_anchor(pending, self._seal_anchor(partition, new), self._db.durability)
                if crash_before_commit is not None:
                    crash_point(crash_before_commit)
                version = self._data_version()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                self._anchor_path(partition, pending=True).unlink(missing_ok=True)
                raise
            _promote(pending, self._anchor_path(partition))
            self._mark_fresh(partition, new, version)
            if partition == CONTROL:
                for record_id, plaintext in sealed_plain:
                    self._control_cache[record_id] = json.loads(plaintext)

    def _refuse_existing(self, partition: str, record_id: str) -> None:
        if self._db.execute("SELECT 1 FROM records WHERE partition=? AND record_id=?",
                            (partition, record_id)).fetchone():
            raise Refusal("record_exists", f"record {record_id} already exists",
                          "records are append-only; use a new id")
        if self._is_erased(partition, record_id):
            raise _forgotten(partition, record_id)

    def _is_erased(self, partition: str, record_id: str) -> bool:
        return self._db.execute("SELECT 1 FROM erased WHERE partition=? AND record_id=?",
                                (partition, record_id)).fetchone() is not None

    def get(self, partition: str, record_id: str) -> dict[str, Any] | None:
        """The decrypted payload of one record, or None when the partition has no such record."""
        with self._snapshot(partition):
            if partition == CONTROL and record_id in self._control_cache:
                return self._control_cache[record_id]
            row = self._db.execute("SELECT ciphertext, key_id FROM records WHERE partition=? AND record_id=?",
                                   (partition, record_id)).fetchone()
            if row is None:
                if self._is_erased(partition, record_id):
                    raise _forgotten(partition, record_id)
                return None
            return self._open_record(partition, record_id, row[0], row[1])

    def records(self, partition: str, prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
        """All records of a partition whose id starts with prefix, in append order."""
        with self._snapshot(partition):
            rows = self._db.execute(
                "SELECT record_id, ciphertext, key_id FROM records WHERE partition=? AND record_id >= ? "
                "AND record_id < ? ORDER BY seq", (partition, prefix, prefix + "\U0010ffff")).fetchall()
            out = []
            for record_id, ciphertext, key_id in rows:
                if partition == CONTROL and record_id in self._control_cache:
                    out.append((record_id, self._control_cache[record_id]))
                else:
                    out.append((record_id, self._open_record(partition, record_id, ciphertext, key_id)))
            return out

    def usage(self, partition: str) -> dict[str, int]:
        """How much of its bounds a partition uses."""
        with self._snapshot(partition) as head:
            pass
        return {"records": head.count, "max_records": MAX_RECORDS_PER_PARTITION,
                "ciphertext_bytes": head.bytes, "max_ciphertext_bytes": MAX_CIPHERTEXT_PER_PARTITION}

    def partitions(self, prefix: str = "") -> list[str]:
        """The names of the partitions whose name starts with prefix, sorted."""
        with self._lock:
            rows = self._db.execute("SELECT partition FROM partitions WHERE partition >= ? AND partition < ? "
                                    "ORDER BY partition", (prefix, prefix + "\U0010ffff")).fetchall()
        return [row[0] for row in rows]

    def key_ids(self, partition: str) -> list[int]:
        """The ids of a partition's data keys, oldest first (rotation adds one; erased keys are
        not listed, and their ids are never used again)."""
        with self._lock:
            rows = self._db.execute("SELECT key_id FROM partition_keys WHERE partition=? "
                                    "AND length(wrapped_key) > 0 ORDER BY key_id", (partition,)).fetchall()
        return [int(row[0]) for row in rows]

    def rotate_data_keys(self, owner_token: str, partitions: list[str] | None = None) -> dict[str, Any]:
        """Owner only: give each partition (default: all) a new data key for the records appended
        from now on. Existing records keep their key id; ciphertext, chain roots and checkpoints
        are unchanged (the checkpoint key derives from the checkpoint identity, which never
        changes, not even under rotate_master_key)."""
        self.principals.require_owner(owner_token)
        rotated: dict[str, int] = {}
        with self._lock:
            names = self.partitions() if partitions is None else list(partitions)
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for partition in names:
                    self._checked_head(partition)
                    current = self._db.execute("SELECT max(key_id) FROM partition_keys WHERE partition=? "
                                               "AND length(wrapped_key) > 0", (partition,)).fetchone()[0]
                    if current is None:
                        raise Refusal("no_partition", f"no partition {partition} in this vault",
                                      "rotate partitions the vault holds (omit the list for all)")
                    key_id = int(current) + 1
                    self._require_current_master()
                    wrapped = crypto.seal(self._master, crypto.new_key(), crypto.wrap_aad(partition, key_id))
                    self._db.execute("INSERT INTO partition_keys VALUES (?,?,?,?)",
                                     (partition, key_id, wrapped, self.clock().isoformat()))
                    rotated[partition] = key_id
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return {"rotated": rotated, "format": FORMAT,
                "note": "records sealed before keep their key; new records use the new key"}

    def rotate_master_key(self, owner_token: str, rotation_id: str) -> dict[str, Any]:
        """Owner only: re-wrap every data key under a new master key, all or nothing. The same
        rotation id returns the retained rotation (never a second one); run it while no other
        process holds the vault open (those refuse new keys with master_key_rotated)."""
        self.principals.require_owner(owner_token)
        check_rotation_id(rotation_id)
        with self._lock:
            retained = self._meta(f"master-rotation:{rotation_id}")
            if retained is not None:
                return {**json.loads(retained), "replayed": True}
            new_master = crypto.new_key()
            pending = self.home.pending_master_key_path
            with self._fully_synced():
                record = self._rotate_master(rotation_id, new_master, pending)
            crash_point("master-committed")
            _promote(pending, self.home.master_key_path)  # another process opening may have done it
            sync_folder(self.home.path)
            self._master = new_master
            self.format_found = ROTATED_FORMAT
            crash_point("master-promoted")
        return record

    @contextmanager
    def _fully_synced(self) -> Iterator[None]:
        """SQLite's FULL synchronous mode for one commit whatever this connection's durability
        setting is: the rotation's commit must be on disk before master.key is replaced."""
        previous = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
        self._db.execute("PRAGMA synchronous=FULL")
        try:
            yield
        finally:
            self._db.execute(f"PRAGMA synchronous={previous:d}")

    def _rotate_master(self, rotation_id: str, new_master: bytes, pending: Path) -> dict[str, Any]:
        """The rotation's one transaction: the new key written beside the old one under the write
        lock, every data key re-wrapped, the checkpoint identity, fingerprint and id recorded."""
        self._db.execute("BEGIN IMMEDIATE")  # held from before the new key exists (see _resolve_master)
        try:
            self._require_current_master()
            replace_private_file(pending, new_master)
            crash_point("master-next-written")
            rewrapped = self._rewrap_all(new_master)
            record = {"rotation_id": rotation_id, "fingerprint": master_fingerprint(new_master),
                      "previous_fingerprint": master_fingerprint(self._master),
                      "rewrapped_keys": rewrapped, "format": ROTATED_FORMAT,
                      "at": self.clock().isoformat()}
            for key, value in (("checkpoint_identity", crypto.seal(new_master, self._identity,
                                                                  identity_aad()).hex()),
                               ("master_fingerprint", record["fingerprint"]),
                               (f"master-rotation:{rotation_id}", json.dumps(record, sort_keys=True)),
                               ("format", ROTATED_FORMAT)):
                self._db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                                 "SET value=excluded.value", (key, value))
            crash_point("master-rewrapped")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            pending.unlink(missing_ok=True)
            raise
        return record

    def _rewrap_all(self, new_master: bytes) -> int:
        """Inside the rotation's transaction: every live wrapped data key (and each partition's
        legacy copy) unwrapped with the current master key and sealed under the new one."""
        count = 0
        rows = self._db.execute("SELECT partition, key_id, wrapped_key FROM partition_keys "
                                "WHERE length(wrapped_key) > 0").fetchall()
        for partition, key_id, wrapped in rows:
            key = crypto.unseal(self._master, wrapped, crypto.wrap_aad(partition, int(key_id)),
                                f"data key {key_id} of {partition}")
            self._db.execute("UPDATE partition_keys SET wrapped_key=? WHERE partition=? AND key_id=?",
                             (crypto.seal(new_master, key, crypto.wrap_aad(partition, int(key_id))),
                              partition, key_id))
            count += 1
        for partition, wrapped in self._db.execute(
                "SELECT partition, wrapped_key FROM partitions WHERE length(wrapped_key) > 0").fetchall():
            self._db.execute("UPDATE partitions SET wrapped_key=? WHERE partition=?",
                             (self._rewrap_legacy(partition, wrapped, new_master), partition))
        return count

    def _rewrap_legacy(self, partition: str, wrapped: bytes, new_master: bytes) -> bytes:
        """A partition row's copy of one of its wrapped keys, re-wrapped under the same key id."""
        ids = [int(r[0]) for r in self._db.execute(
            "SELECT key_id FROM partition_keys WHERE partition=? ORDER BY key_id DESC", (partition,))]
        for key_id in ids:
            try:
                key = crypto.unseal(self._master, wrapped, crypto.wrap_aad(partition, key_id), "legacy key")
            except Refusal:
                continue
            return crypto.seal(new_master, key, crypto.wrap_aad(partition, key_id))
        raise _integrity(f"the key copy of partition {partition} opens under none of its key ids")

    def erase_partition(self, partition: str) -> dict[str, Any]:
        """Remove every record and every data key of a partition (the keys go too, so stray
        copies of its ciphertext no longer open). Callers check the owner's authority."""
        return self.erase(partition, None)

    def erase(self, partition: str, record_ids: list[str] | None) -> dict[str, Any]:
        """Remove records of a partition (None: all of them, and its data keys) with SQLite's
        secure delete, keep each erased id as a content-free anchor, and re-anchor the chain over
        the records that remain. Callers check the owner's authority (FeedbackRecovery)."""
        with self._lock:
            self._db.execute("PRAGMA secure_delete=ON")
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._checked_head(partition)
                if self._db_head(partition) is None:
                    raise Refusal("no_partition", f"no partition {partition} in this vault",
                                  "erase partitions the vault holds")
                present = [row[0] for row in self._db.execute(
                    "SELECT record_id FROM records WHERE partition=?", (partition,)).fetchall()]
                ids = present if record_ids is None else [r for r in present if r in set(record_ids)]
                now = self.clock().isoformat()
                for record_id in ids:
                    self._db.execute("INSERT OR IGNORE INTO erased VALUES (?,?,?)",
                                     (partition, record_id, now))
                    self._db.execute("DELETE FROM records WHERE partition=? AND record_id=?",
                                     (partition, record_id))
                if record_ids is None:
                    for table in ("partition_keys", "partitions"):  # shredded; ids are never reused
                        self._db.execute(f"UPDATE {table} SET wrapped_key=X'' WHERE partition=?",
                                         (partition,))
                head = self._rechain(partition)
                pending = self._anchor_path(partition, pending=True)
                write_anchor(pending, self._seal_anchor(partition, head), self._db.durability)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                self._anchor_path(partition, pending=True).unlink(missing_ok=True)
                raise
            finally:
                self._db.execute("PRAGMA secure_delete=OFF")
            _promote(pending, self._anchor_path(partition))
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if record_ids is None:
                for cached in [k for k in self._keys if k[0] == partition]:
                    del self._keys[cached]
            if partition == CONTROL:
                for record_id in ids:
                    self._control_cache.pop(record_id, None)
            self._verified.pop(partition, None)
            self._fresh.pop(partition, None)
        return {"partition": partition, "erased_records": len(ids)}

    def _rechain(self, partition: str) -> Head:
        """The head over a partition's remaining rows, written to its partitions row."""
        root, count, seq, total = _GENESIS, 0, 0, 0
        for record_id, row_seq, ciphertext in self._db.execute(
                "SELECT record_id, seq, ciphertext FROM records WHERE partition=? ORDER BY seq",
                (partition,)):
            root = chain_step(root, record_id, ciphertext)
            count, seq, total = count + 1, row_seq, total + len(ciphertext)
        head = Head(count, seq, root, total)
        self._db.execute("UPDATE partitions SET count=?, seq=?, root=?, bytes=? WHERE partition=?",
                         (head.count, head.seq, head.root, head.bytes, partition))
        return head

    def verify(self, partition: str) -> dict[str, Any]:
        """Re-check a partition's whole chain against its checkpoint now (fails closed)."""
        with self._lock:
            self._verified.pop(partition, None)
            self._fresh.pop(partition, None)
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

    def _open_record(self, partition: str, record_id: str, ciphertext: bytes, key_id: int) -> dict[str, Any]:
        key = self._key(partition, int(key_id))
        plain = crypto.unseal(key, ciphertext, crypto.record_aad(partition, record_id),
                              f"record {record_id}")
        payload: dict[str, Any] = json.loads(plain)
        if partition == CONTROL:
            self._control_cache[record_id] = payload
        return payload

    def _sealing_key(self, partition: str) -> tuple[int, bytes]:
        """The partition's newest data key, inside a write transaction (so a rotation by another
        process is seen by the next append here). A new partition, or one whose keys were erased,
        gets a new key with a never-used id: a key id always names one key, in every process."""
        row = self._db.execute("SELECT key_id, length(wrapped_key) FROM partition_keys WHERE partition=? "
                               "ORDER BY key_id DESC LIMIT 1", (partition,)).fetchone()
        if row is not None and row[1]:
            return int(row[0]), self._key(partition, int(row[0]))
        key_id = 1 if row is None else int(row[0]) + 1
        self._require_current_master()
        key = crypto.new_key()
        wrapped = crypto.seal(self._master, key, crypto.wrap_aad(partition, key_id))
        self._db.execute("INSERT INTO partitions VALUES (?,?,0,0,?,0) ON CONFLICT (partition) "
                         "DO UPDATE SET wrapped_key=excluded.wrapped_key", (partition, wrapped, _GENESIS))
        self._db.execute("INSERT INTO partition_keys VALUES (?,?,?,?)",
                         (partition, key_id, wrapped, self.clock().isoformat()))
        self._keys[(partition, key_id)] = key
        return key_id, key

    def _key(self, partition: str, key_id: int) -> bytes:
        """One data key of a partition, unwrapped once per process."""
        cached = self._keys.get((partition, key_id))
        if cached is not None:
            return cached
        row = self._db.execute("SELECT wrapped_key FROM partition_keys WHERE partition=? AND key_id=?",
                               (partition, key_id)).fetchone()
        if row is None:
            raise _integrity(f"partition {partition} has records sealed with key {key_id}, which it lacks")
        key = crypto.unseal(self._master, row[0], crypto.wrap_aad(partition, key_id),
                            f"data key {key_id} of {partition}")
        self._keys[(partition, key_id)] = key
        return key

    def _anchor_path(self, partition: str, *, pending: bool = False) -> Path:
        cached = self._anchor_paths.get((partition, pending))
        if cached is None:
            name = hmac.new(self._names_key, partition.encode(), hashlib.sha256).hexdigest()[:40]
            cached = self._anchor_paths[(partition, pending)] = (
                self.home.checkpoints / (name + (".pending" if pending else ".ckpt")))
        return cached

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

    def _data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def _freshness(self, partition: str, version: int | None = None) -> tuple[object, ...]:
        """What the checks of a partition depend on that can change under this process: other
        connections' commits and the bytes of its checkpoint files."""
        marks: list[object] = [self._data_version() if version is None else version]
        for path in (self._anchor_path(partition), self._anchor_path(partition, pending=True)):
            try:
                with open(path, "rb") as handle:
                    marks.append(handle.read())
            except FileNotFoundError:
                marks.append(None)
        return tuple(marks)

    def _mark_fresh(self, partition: str, head: Head, version: int | None = None) -> None:
        """Remember that this process checked (or wrote) the partition at this head; a writer
        passes the data version it read inside its write transaction."""
        self._verified[partition] = head
        self._fresh[partition] = self._freshness(partition, version)

    def _checked_head(self, partition: str) -> Head:
        """The partition's head after the integrity checks; any mismatch fails closed. Checks
        that cannot have changed since the last ones passed in this process are not repeated."""
        known = self._verified.get(partition)
        if known is not None and self._fresh.get(partition) == self._freshness(partition):
            return known
        head = self._full_check(partition)
        self._mark_fresh(partition, head)
        return head

    def _full_check(self, partition: str) -> Head:
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
