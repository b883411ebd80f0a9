"""The owner-private home of an evidence vault: one directory per vault id, keys beside the store.

Layout of ``<root>/<vault_id>/``: ``master.key`` (32 random bytes), ``evidence.db`` (SQLite),
``.feedback-checkpoints/`` (one encrypted anchor per vault partition), ``machine-binding`` (the
content-free, authenticated binding of the home to the machine that adopted it) and, only while
a master-key rotation is in flight, ``master.key.next``. The directory is 0700 and
every key, credential and checkpoint file 0600; a home whose private files are readable by the
group or by others is refused rather than repaired.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from revetly_core.refusal import Refusal
from revetly_core.writes.files import SECRET_MODE, atomic_write

MASTER_KEY_FILE = "master.key"
PENDING_MASTER_KEY_FILE = "master.key.next"
BINDING_FILE = "machine-binding"
DATABASE_FILE = "evidence.db"
CHECKPOINT_DIR = ".feedback-checkpoints"
MASTER_KEY_BYTES = 32
_VAULT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_OTHERS_MASK = stat.S_IRWXG | stat.S_IRWXO


def check_vault_id(vault_id: str) -> str:
    """A vault id is 1-64 letters, digits, dot, dash or underscore, starting with a letter or digit."""
    if not _VAULT_ID.match(vault_id):
        raise Refusal("bad_vault_id", f"{vault_id!r} is not a vault id",
                      "use 1-64 characters from A-Z a-z 0-9 . _ - starting with a letter or digit")
    return vault_id


def is_owner_private(path: Path) -> bool:
    """True when neither the group nor others have any permission on the path."""
    return (path.stat().st_mode & _OTHERS_MASK) == 0


def require_owner_private(path: Path, what: str) -> None:
    """Refuse a private file or directory that the group or others can reach (fail closed)."""
    if not is_owner_private(path):
        raise Refusal("not_owner_private",
                      f"the {what} {path} is readable by the group or by others",
                      f"restrict it to its owner (chmod {'700' if path.is_dir() else '600'}) "
                      "after checking nobody copied it")


def require_new_file(path: Path, what: str) -> None:
    """The path is free for a new private file: nothing there, not even a dangling symlink, and
    its folder exists."""
    if path.exists() or path.is_symlink():
        raise Refusal("file_exists", f"the {what} {path} already exists"
                      + (" (a symbolic link)" if path.is_symlink() else ""),
                      "choose a new file; credentials and keys are never overwritten")
    if not path.parent.is_dir():
        raise Refusal("no_file", f"the folder of the {what} {path} does not exist",
                      "create the folder first, or choose another path")


def write_private_file(path: Path, data: bytes) -> None:
    """Create a new 0600 file exclusively; an existing file (or any symlink) is never followed
    or overwritten."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise Refusal("file_exists", f"{path} already exists",
                      "choose a new file; credentials and keys are never overwritten") from None
    except OSError as exc:
        raise Refusal("no_file", f"cannot create {path}: {exc.strerror}",
                      "choose a path in an existing folder you can write") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def replace_private_file(path: Path, data: bytes) -> None:
    """Write a 0600 file atomically: the engine's one durable write (temp, fsync, rename,
    fsync of the folder)."""
    atomic_write(path, data, mode=SECRET_MODE)


MAX_PRIVATE_FILE = 64 * 1024
"""The largest key, credential or binding file read (they are a few hundred bytes)."""


def read_private_file(path: Path, what: str, *, limit: int = MAX_PRIVATE_FILE) -> bytes:
    """The bytes of an owner-private file of at most limit bytes; missing, too open or too large
    is a refusal (the size is checked before the read)."""
    if not path.is_file():
        raise Refusal("missing_private_file", f"the {what} {path} does not exist",
                      "check the path; a home is created with `revetly rag owner init`")
    require_owner_private(path, what)
    if path.stat().st_size > limit:
        raise Refusal("private_file_too_large", f"the {what} {path} is larger than {limit} bytes",
                      "restore it from the home's backup")
    with path.open("rb") as handle:
        return handle.read(limit + 1)


def sync_folder(path: Path) -> None:
    """fsync a folder, so a rename or unlink in it is durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Home:
    """An opened, permission-checked vault home."""

    path: Path

    @property
    def database(self) -> Path:
        return self.path / DATABASE_FILE

    @property
    def checkpoints(self) -> Path:
        return self.path / CHECKPOINT_DIR

    @property
    def master_key_path(self) -> Path:
        return self.path / MASTER_KEY_FILE

    @property
    def pending_master_key_path(self) -> Path:
        return self.path / PENDING_MASTER_KEY_FILE

    @property
    def binding_path(self) -> Path:
        return self.path / BINDING_FILE

    @classmethod
    def create(cls, root: Path | str, vault_id: str) -> Home:
        """Make a new home (0700) with a fresh master key (0600); an existing home is refused."""
        path = Path(root) / check_vault_id(vault_id)
        if path.exists():
            raise Refusal("home_exists", f"a vault home already exists at {path}",
                          "open it instead, or choose another vault id")
        Path(root).mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700)
        os.chmod(path, 0o700)
        (path / CHECKPOINT_DIR).mkdir(mode=0o700)
        write_private_file(path / MASTER_KEY_FILE, secrets.token_bytes(MASTER_KEY_BYTES))
        return cls(path)

    @classmethod
    def open(cls, root: Path | str, vault_id: str) -> Home:
        """Open an existing home after checking that it and its key files are owner-private."""
        path = Path(root) / check_vault_id(vault_id)
        if not path.is_dir():
            raise Refusal("no_home", f"no vault home at {path}",
                          "create one with `revetly rag owner init` (or EvidenceService.create)")
        home = cls(path)
        require_owner_private(path, "vault home")
        require_owner_private(home.checkpoints, "checkpoint directory")
        for child in home.checkpoints.iterdir():
            require_owner_private(child, "checkpoint")
        if home.database.exists():
            require_owner_private(home.database, "evidence database")
        return home

    def master_key(self) -> bytes:
        """The 32-byte master key, read after its permissions are checked."""
        key = read_private_file(self.master_key_path, "master key")
        if len(key) != MASTER_KEY_BYTES:
            raise Refusal("bad_master_key", f"{self.master_key_path} is not a 32-byte key",
                          "restore the home's master key from its backup")
        return key
