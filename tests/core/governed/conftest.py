"""Fixtures of the governed-layer tests: a real vault home in a temp folder, a movable clock."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# governed_world.py lives beside this file; make it importable by its own (unique) name.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from governed_world import World, make_world


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[World]:
    """A vault with an owner, one application principal granted every operation for a day,
    and the sqlite-vault source 'law' holding four passages."""
    w = make_world(tmp_path / "homes")
    yield w
    w.rag.close()
    w.evidence.close()
