"""Make tests/fixtures/fixture_repo.py (the hand-written source fixtures' builder) importable."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
