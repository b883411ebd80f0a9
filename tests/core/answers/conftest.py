"""The instances the command-answer tests build their payloads on (shared with their areas)."""

from __future__ import annotations

from tests.core.operate.conftest import code_repo, floored  # noqa: F401  (fixtures)
from tests.core.writes.conftest import winst  # noqa: F401  (fixture)
