"""The CONTEXT store: SQLite for records, whoosh for keywords, networkx for links."""

from revetly_core.store.db import SCHEMA_VERSION, Store

__all__ = ["SCHEMA_VERSION", "Store"]
