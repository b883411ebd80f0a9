"""The engine the write tests use (a module of its own: `conftest` is not importable by name
when several test folders each have one)."""

from __future__ import annotations

from typing import Any

from tests.core.gitrepo import Instance


def engine(inst: Instance, mode: str = "none") -> Any:
    """An engine on the instance whose writes start no background pass (unless asked)."""
    e = inst.engine()
    e.capture_mode = mode
    return e
