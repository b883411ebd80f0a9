"""The validated-config cache: revetly.toml's settings kept in `.revetly/`, keyed by the file's bytes.

A read reuses the settings only when the sha256 of revetly.toml's bytes and the digest of the
code that validates and holds them (config.py, config_sources.py, config_schema.py) both match
what was cached; anything else (a changed file, another engine version, a missing, torn or
foreign cache file) is a miss, and the file is validated again as if there were no cache. Only a
file that validated is cached, so a bad config is refused exactly as without one (decisions/0025).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from revetly_core.config import Config, build_settings, settings_of
from revetly_core.instance.layout import STATE_DIR

CACHE_FILE = "config-cache.json"
CACHE_FORMAT = 1
MAX_CACHE_BYTES = 8 * 1_048_576
"""The longest cache file read; a longer one is a miss."""
_CODE = ("config.py", "config_sources.py", "config_schema.py")
_code_digest: str | None = None


def cache_path(instance_root: Path) -> Path:
    """Where an instance keeps its validated settings."""
    return instance_root / STATE_DIR / CACHE_FILE


def code_digest() -> str:
    """A digest of the modules that give the settings their meaning (read once a process)."""
    global _code_digest
    if _code_digest is None:
        here = Path(__file__).parent
        h = hashlib.sha256(f"format={CACHE_FORMAT}".encode())
        for name in _CODE:
            h.update(b"\0" + (here / name).read_bytes())
        _code_digest = h.hexdigest()
    return _code_digest


def cache_key(raw: bytes) -> dict[str, str]:
    """What a cache entry must carry to be reused for these bytes of revetly.toml."""
    return {"config_sha256": hashlib.sha256(raw).hexdigest(), "code": code_digest()}


def cached_config(instance_root: Path, raw: bytes) -> Config | None:
    """The settings cached for exactly these bytes by this code, else None (a miss)."""
    entry = _read_entry(cache_path(instance_root))
    if entry is None or any(entry.get(k) != v for k, v in cache_key(raw).items()):
        return None
    try:
        config: Config = build_settings(Config, entry["settings"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return config


def _read_entry(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_CACHE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_CACHE_BYTES:
        return None
    try:
        entry = json.loads(data)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) else None


def remember_config(instance_root: Path, raw: bytes, config: Config) -> None:
    """Keep validated settings for the next read, through the project's atomic write (the old
    entry or the new one, never half). Best effort: without `.revetly/`, or when it is not
    writable, nothing is kept and the next read validates again."""
    from revetly_core.writes.files import atomic_write  # only on a miss: not the read path

    state = instance_root / STATE_DIR
    if not state.is_dir():
        return
    entry = {**cache_key(raw), "settings": settings_of(config)}
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
    with contextlib.suppress(OSError):
        atomic_write(state / CACHE_FILE, text.encode("utf-8"))
