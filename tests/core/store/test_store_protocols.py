"""The store seam: the SQLite store and the file index implement the protocols reads type with,
and no SQL is written above store/."""

from __future__ import annotations

import re
from pathlib import Path

from revetly_core.store import protocols
from revetly_core.store.db import SQLiteStore
from revetly_core.store.keyword import FileKeywordIndex, KeywordSearcher

import revetly_core

PACKAGE = Path(revetly_core.__file__).parent
SQL_CALL = re.compile(r"\.conn\b|\bexecute(many|script)?\(|\.cursor\(")
TYPED_WITH_PROTOCOLS = ("reads", "scope")


def members(protocol: type) -> set[str]:
    """The names a protocol declares, its bases' included."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (object,) or cls.__name__ in ("Protocol", "Generic"):
            continue
        names.update(n for n in vars(cls) if not n.startswith("_") or n in ("__enter__", "__exit__"))
        names.update(getattr(cls, "__annotations__", {}))
    return names - {"__annotations__"}


def test_the_sqlite_store_has_every_member_of_the_store_protocol(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "context.db") as store:
        missing = sorted(n for n in members(protocols.Store) if not hasattr(store, n))
    assert missing == []


def test_the_file_index_has_every_member_of_the_keyword_index_protocol(tmp_path: Path) -> None:
    index = FileKeywordIndex(tmp_path / "index")
    missing = sorted(n for n in members(protocols.KeywordIndex) if not hasattr(index, n))
    assert missing == []


def test_the_searcher_has_every_member_of_the_searcher_protocol() -> None:
    missing = sorted(n for n in members(protocols.KeywordSearcher)
                     if n != "doc_count" and not hasattr(KeywordSearcher, n))
    assert missing == []


def test_no_protocol_method_takes_sql() -> None:
    assert "live_links" not in members(protocols.Store)
    assert "db" not in members(protocols.Store)


def test_no_module_above_the_store_runs_sql() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("store/", "governed/")):
            continue  # the governed layer keeps its own evidence database
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SQL_CALL.search(line) and "conn_type" not in line and "conn.request" not in line \
                    and "conn.getresponse" not in line and "conn.close" not in line:
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []


def test_reads_and_scope_type_the_store_with_the_protocols() -> None:
    concrete = []
    for folder in TYPED_WITH_PROTOCOLS:
        for path in sorted((PACKAGE / folder).glob("*.py")):
            text = path.read_text(encoding="utf-8")
            if re.search(r"from revetly_core\.store\.db import [^\n]*\bStore\b", text) or \
                    re.search(r"from revetly_core\.store\.keyword import [^\n]*\bKeywordIndex\b", text):
                concrete.append(path.name)
    assert concrete == []
