#!/usr/bin/env python3
"""The raw baseline the performance benches measure Revetly against, side by side in one run.

A plain SQLite FTS5 index over the same markdown files an instance holds (porter stemmer, bm25
with the title weighted 3x), built with nothing but the standard library, and queried the plain
way: the query's distinct words OR-ed. Three measures use it:

- `build_index` — the plain build of the files (beside the full pass);
- `search` — the in-process OR query (beside `search_context`);
- `bare_process` — a fresh `python3` that opens the index and runs one query (beside one
  `revetly search --json` process).

    python bench/raw_fts5.py INSTANCE_DIR [QUERY ...]   # build in memory, time it, run queries
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

TITLE_WEIGHT, BODY_WEIGHT = 3.0, 1.0
SKIPPED_DIRS = frozenset({".git", ".revetly"})
_TITLE = re.compile(r"^title:\s*(.+?)\s*$|^#\s+(.+?)\s*$", re.MULTILINE)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class BuildStats:
    """What one plain build did: files indexed and its wall and CPU seconds."""

    files: int
    wall_s: float
    cpu_s: float


@dataclass(frozen=True)
class ProcessRun:
    """One fresh process: its wall seconds and the CPU seconds the kernel charged it."""

    wall_s: float
    cpu_s: float
    returncode: int


def markdown_files(instance: Path) -> Iterator[Path]:
    """Every `.md` file under the instance, outside `.git` and `.revetly`, in a stable order."""
    for root, dirs, files in os.walk(instance):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".md"):
                yield Path(root) / name


def title_of(text: str, fallback: str) -> str:
    """A file's title: its frontmatter `title:` or first heading, else the fallback (its name)."""
    found = _TITLE.search(text)
    if found is None:
        return fallback
    return (found.group(1) or found.group(2) or fallback).strip("'\"")


def build_index(instance: Path, db_path: Path | str = ":memory:") -> tuple[sqlite3.Connection, BuildStats]:
    """Index every markdown file of the instance in one FTS5 table, in one transaction."""
    wall, cpu = time.perf_counter(), time.process_time()
    conn = sqlite3.connect(str(db_path))
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(title, body, path UNINDEXED, "
                 "tokenize = 'porter unicode61')")
    count = 0
    with conn:
        conn.execute("DELETE FROM docs")
        for path in markdown_files(instance):
            text = path.read_text(encoding="utf-8", errors="replace")
            rel = path.relative_to(instance).as_posix()
            conn.execute("INSERT INTO docs(title, body, path) VALUES (?, ?, ?)",
                         (title_of(text, path.stem), text, rel))
            count += 1
    return conn, BuildStats(count, time.perf_counter() - wall, time.process_time() - cpu)


def or_query(text: str, max_terms: int = 64) -> str | None:
    """The plain FTS5 query of a text: its distinct lowercased words, quoted and OR-ed."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:max_terms]
    if not words:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def search(conn: sqlite3.Connection, text: str, limit: int = 10) -> list[str]:
    """The paths of the best `limit` files for the text, by bm25 with the title weighted 3x."""
    query = or_query(text)
    if query is None:
        return []
    rows = conn.execute("SELECT path FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, ?, ?) LIMIT ?",
                        (query, TITLE_WEIGHT, BODY_WEIGHT, limit)).fetchall()
    return [str(path) for (path,) in rows]


BARE_PROCESS_CODE = """
import json, re, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
words = list(dict.fromkeys(w.lower() for w in re.findall(r"\\w+", sys.argv[2])))[:64]
query = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
rows = conn.execute("SELECT path, title FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 3.0, 1.0) "
                    "LIMIT 10", (query,)).fetchall()
print(json.dumps([{"path": p, "title": t} for p, t in rows]))
"""


def run_process(argv: Sequence[str], env: dict[str, str] | None = None) -> ProcessRun:
    """Run one process to its end, output discarded; wall seconds and the CPU from `os.wait4`."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ProcessRun(wall, usage.ru_utime + usage.ru_stime, proc.returncode)


def bare_process(db_path: Path, query: str, python: str = sys.executable) -> ProcessRun:
    """A fresh interpreter that opens the plain index on disk, runs one OR query and prints JSON."""
    return run_process([python, "-c", BARE_PROCESS_CODE, str(db_path), query])


def main(argv: Sequence[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    conn, stats = build_index(Path(argv[0]))
    print(f"{stats.files} files indexed in {stats.wall_s:.2f} s wall, {stats.cpu_s:.2f} s CPU")
    for text in argv[1:]:
        start = time.perf_counter()
        hits = search(conn, text)
        print(f"{(time.perf_counter() - start) * 1000:.1f} ms  {text!r}: {hits[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
