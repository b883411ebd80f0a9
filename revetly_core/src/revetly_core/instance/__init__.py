"""The instance on disk: where it is, how it is laid out, and how to scaffold one."""

from revetly_core.instance.layout import InstancePaths, locate_instance
from revetly_core.instance.scaffold import scaffold_instance

__all__ = ["InstancePaths", "locate_instance", "scaffold_instance"]
