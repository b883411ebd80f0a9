"""Recipient encryption of export bundles: X25519 key agreement, HKDF-SHA256, AES-256-GCM.

The sender makes a fresh ephemeral X25519 key pair per bundle, agrees a shared secret with the
recipient's public key, derives a 256-bit key with HKDF-SHA256 (salt: both public keys, info:
the scheme name) and seals the plaintext with AES-256-GCM bound to the bundle's header. Only the
holder of the recipient's private key can derive the key; the sender keeps nothing that opens it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from revetly_core.refusal import Refusal

SCHEME = "X25519-HKDF-SHA256-AES-256-GCM"
BUNDLE_FORMAT = "revetly-export-1"
_RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw


def load_public_key(key: bytes | str) -> X25519PublicKey:
    """A recipient public key from 32 raw bytes or a PEM SubjectPublicKeyInfo text."""
    try:
        if isinstance(key, str):
            loaded = serialization.load_pem_public_key(key.encode())
            if not isinstance(loaded, X25519PublicKey):
                raise ValueError("not X25519")
            return loaded
        return X25519PublicKey.from_public_bytes(key)
    except (ValueError, TypeError):
        raise Refusal("bad_recipient_key", "the recipient key is not a raw or PEM X25519 public key",
                      "ask the recipient for their X25519 public key") from None


def public_key_sha256(key: X25519PublicKey) -> str:
    """The fingerprint of a recipient key: SHA-256 of its 32 raw bytes."""
    return hashlib.sha256(key.public_bytes(*_RAW)).hexdigest()


def _derive(shared: bytes, ephemeral: bytes, recipient: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=ephemeral + recipient,
                info=SCHEME.encode()).derive(shared)


def _header_aad(header: dict[str, Any]) -> bytes:
    return json.dumps(header, sort_keys=True, separators=(",", ":")).encode()


def seal_for(recipient: X25519PublicKey, plaintext: bytes, header: dict[str, Any]) -> dict[str, Any]:
    """A bundle only the recipient's private key opens; the header is authenticated, not secret."""
    ephemeral = X25519PrivateKey.generate()
    ephemeral_raw = ephemeral.public_key().public_bytes(*_RAW)
    recipient_raw = recipient.public_bytes(*_RAW)
    key = _derive(ephemeral.exchange(recipient), ephemeral_raw, recipient_raw)
    full = {**header, "format": BUNDLE_FORMAT, "scheme": SCHEME,
            "recipient_key_sha256": public_key_sha256(recipient),
            "ephemeral_public_key": base64.b64encode(ephemeral_raw).decode()}
    nonce = secrets.token_bytes(12)
    sealed = AESGCM(key).encrypt(nonce, plaintext, _header_aad(full))
    return {"header": full, "nonce": base64.b64encode(nonce).decode(),
            "ciphertext": base64.b64encode(sealed).decode()}


def open_bundle(bundle: dict[str, Any], private_key: X25519PrivateKey) -> bytes:
    """The plaintext of a bundle, for its recipient; any other key or any change is a refusal."""
    try:
        header = bundle["header"]
        if header.get("format") != BUNDLE_FORMAT or header.get("scheme") != SCHEME:
            raise ValueError("format")
        ephemeral_raw = base64.b64decode(header["ephemeral_public_key"], validate=True)
        recipient_raw = private_key.public_key().public_bytes(*_RAW)
        shared = private_key.exchange(X25519PublicKey.from_public_bytes(ephemeral_raw))
        key = _derive(shared, ephemeral_raw, recipient_raw)
        return AESGCM(key).decrypt(base64.b64decode(bundle["nonce"], validate=True),
                                   base64.b64decode(bundle["ciphertext"], validate=True), _header_aad(header))
    except (InvalidTag, KeyError, TypeError, ValueError):
        raise Refusal("export_unreadable", "the export bundle does not open with this private key "
                      "or was changed", "open it with the recipient's own private key and the bundle "
                      "as delivered") from None
