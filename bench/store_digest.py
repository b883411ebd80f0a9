#!/usr/bin/env python3
"""A digest of everything a pass wrote, to compare two builds of one instance (before/after a
change that must not change what the pass stores).

    python bench/store_digest.py INSTANCE_DIR > after.json
    diff before.json after.json

Every table of `.revetly/context.db` and of the keyword index (`.revetly/index/keyword.sqlite`,
FTS5's own tables included) is read whole, its rows sorted, and summarised as its row count
and a SHA-256 prefix. The pass's own clock is masked: a value equal to a pass's `started_at`
or `ended_at` reads as `<clock>`. What still differs between two passes run at different
moments is the clock of each source's read (`ledger.started_at`/`ended_at`,
`sources.last_read_at`), so those two tables are also digested with their time columns left out.
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

SOURCE_CLOCK_COLUMNS = {"ledger": ("started_at", "ended_at"), "sources": ("last_read_at",)}
"""Times the pass stamps when each source's read starts and ends (not the pass's own)."""


def pass_clock(conn: sqlite3.Connection) -> set[str]:
    """The start and end times of every pass the store records."""
    return {v for row in conn.execute("SELECT started_at, ended_at FROM passes") for v in row if v}


def table_digest(conn: sqlite3.Connection, table: str, clock: set[str],
                 skip: tuple[str, ...] = ()) -> tuple[int, str]:
    """(row count, digest) of one table: rows sorted, the pass clock masked, ``skip`` left out."""
    cur = conn.execute(f'SELECT * FROM "{table}"')
    names = [d[0] for d in cur.description]
    keep = [i for i, n in enumerate(names) if n not in skip]
    rows = sorted((tuple("<clock>" if r[i] in clock else r[i] for i in keep) for r in cur),
                  key=repr)
    return len(rows), hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def database_digest(path: Path, clock: set[str]) -> dict[str, Any]:
    """table -> (rows, digest) for every table of one SQLite file."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        out: dict[str, Any] = {}
        for table in tables:
            out[table] = table_digest(conn, table, clock)
            if table in SOURCE_CLOCK_COLUMNS:
                out[f"{table} (without read times)"] = table_digest(
                    conn, table, clock, SOURCE_CLOCK_COLUMNS[table])
        return out
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instance", type=Path)
    args = ap.parse_args(argv)
    state = args.instance / ".revetly"
    db = state / "context.db"
    if not db.is_file():
        sys.exit(f"no store at {db}: run a pass first")
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    clock = pass_clock(conn)
    conn.close()
    result = {"context": database_digest(db, clock)}
    keyword = state / "index" / "keyword.sqlite"
    if keyword.is_file():
        result["keyword"] = database_digest(keyword, clock)
    print(json.dumps(result, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
