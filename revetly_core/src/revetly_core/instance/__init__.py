"""The instance on disk: where it is, how it is laid out, and how to scaffold one.

`scaffold_instance` loads its module on first use, so a read that only locates the instance does
not import what `revetly init` needs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from revetly_core.instance.layout import InstancePaths, locate_instance

if TYPE_CHECKING:
    from revetly_core.instance.scaffold import scaffold_instance

__all__ = ["InstancePaths", "locate_instance", "scaffold_instance"]


def __getattr__(name: str) -> Any:
    if name != "scaffold_instance":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from revetly_core.instance.scaffold import scaffold_instance

    return scaffold_instance
