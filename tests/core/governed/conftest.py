"""Fixtures of the governed-layer tests: a real vault home in a temp folder, a movable clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.core.governed.governed_world import World, make_world


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[World]:
    """A vault with an owner, one application principal granted every operation for a day,
    and the sqlite-vault source 'law' holding four passages."""
    w = make_world(tmp_path / "homes")
    yield w
    w.rag.close()
    w.evidence.close()
