"""The CONTEXT store: SQLite for records, FTS5 (or whoosh) for keywords, networkx for links.

Reads and scope see it through `store.protocols` (`Store`, `KeywordIndex`); the SQL lives here,
one query module per concern (`queries_*.py`), id lists batched by `store.batches`.
"""

from revetly_core.store.db import SCHEMA_VERSION, Store

__all__ = ["SCHEMA_VERSION", "Store"]
