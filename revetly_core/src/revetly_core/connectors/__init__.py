"""Connectors: one module per kind of source, all behind the small protocol in base."""

from revetly_core.connectors.base import Connector, FileProblem, SourceBatch

__all__ = ["Connector", "FileProblem", "SourceBatch"]
