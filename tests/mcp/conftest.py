"""Fixtures of the MCP tests: a synced instance on disk."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from revetly_core import Engine


@pytest.fixture()
def synced_instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty instance with one read pass done."""
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    root = tmp_path / "inst"
    Engine.init(root)
    Engine.open(root).sync()
    return root
