"""Revetly's engine: an instance's sources read into one local CONTEXT, and the reads over it."""

from revetly_core.config import Config, load_config, parse_config
from revetly_core.engine import Engine
from revetly_core.model import Artifact, HistoryEntry, Link
from revetly_core.refusal import Refusal

__version__ = "0.1.0"

__all__ = [
    "Artifact",
    "Config",
    "Engine",
    "HistoryEntry",
    "Link",
    "Refusal",
    "__version__",
    "load_config",
    "parse_config",
]
