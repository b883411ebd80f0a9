"""What a scope read is handed: the instance's configuration and its CONTEXT handles."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from revetly_core.config import Config
from revetly_core.scope.path_history import PathHistoryCache
from revetly_core.store.protocols import KeywordIndex, Store


@dataclass
class ScopeContext:
    """Config, store, keyword index and graph of one instance, plus the path-history cache."""

    config: Config
    store: Store
    index: KeywordIndex
    graph: Any
    root: Path
    path_cache: PathHistoryCache
