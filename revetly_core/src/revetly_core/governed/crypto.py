"""AES-256-GCM for the vault: per-partition data keys wrapped by the master key, AAD on every seal."""

from __future__ import annotations

import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from revetly_core.refusal import Refusal

KEY_BYTES = 32
NONCE_BYTES = 12
SEAL_OVERHEAD = NONCE_BYTES + 16


def new_key() -> bytes:
    """A fresh random 256-bit key."""
    return secrets.token_bytes(KEY_BYTES)


def seal(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """Encrypt and authenticate: ``nonce || ciphertext+tag``, bound to ``aad``."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def unseal(key: bytes, blob: bytes, aad: bytes, what: str) -> bytes:
    """Decrypt a sealed blob; any change to it or to its binding is a refusal (fail closed)."""
    if len(blob) < SEAL_OVERHEAD:
        raise _tampered(what)
    try:
        return AESGCM(key).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad)
    except InvalidTag:
        raise _tampered(what) from None


def record_aad(partition: str, record_id: str) -> bytes:
    """The associated data binding a record to its partition and id."""
    return b"revetly-record\x00" + partition.encode() + b"\x00" + record_id.encode()


def wrap_aad(partition: str, key_id: int = 1) -> bytes:
    """The associated data binding a wrapped data key to its partition and key id (key 1 keeps
    the format-1 binding, so keys written before rotation existed still open)."""
    base = b"revetly-data-key\x00" + partition.encode()
    return base if key_id == 1 else base + b"\x00" + str(key_id).encode()


def checkpoint_aad(partition: str) -> bytes:
    """The associated data binding a checkpoint to its partition."""
    return b"revetly-checkpoint\x00" + partition.encode()


def _tampered(what: str) -> Refusal:
    return Refusal("evidence_tampered", f"{what} failed authentication: it was changed or moved",
                   "restore the complete home (database, keys and checkpoints) from a backup")
