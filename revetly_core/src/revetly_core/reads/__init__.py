"""Reads: each returns a JSON-ready payload that both shells serve unchanged."""

from revetly_core.reads.check import check_instance
from revetly_core.reads.health import context_health

__all__ = ["check_instance", "context_health"]
