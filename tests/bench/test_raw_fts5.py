"""The raw FTS5 baseline of the benches: what it indexes, how it ranks, the bare process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.scripts import load_script

raw = load_script("revetly_bench_raw_fts5",
                  Path(__file__).resolve().parents[2] / "bench" / "raw_fts5.py")


@pytest.fixture()
def instance(tmp_path: Path) -> Path:
    (tmp_path / "backlog").mkdir()
    (tmp_path / ".revetly").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "backlog" / "STORY-1.md").write_text("---\ntitle: Export invoices\n---\nCSV export.\n")
    (tmp_path / "backlog" / "STORY-2.md").write_text("# Login page\n\nThe invoices link moves.\n")
    (tmp_path / ".revetly" / "cache.md").write_text("title: invoices\n")
    (tmp_path / ".git" / "x.md").write_text("title: invoices\n")
    return tmp_path


def test_only_instance_markdown_outside_state_is_indexed(instance: Path) -> None:
    assert [p.relative_to(instance).as_posix() for p in raw.markdown_files(instance)] == [
        "backlog/STORY-1.md", "backlog/STORY-2.md"]


def test_title_comes_from_frontmatter_or_heading() -> None:
    assert raw.title_of("---\ntitle: 'Quoted'\n---\n", "f") == "Quoted"
    assert raw.title_of("# Heading\nbody", "f") == "Heading"
    assert raw.title_of("no title here", "fallback") == "fallback"


def test_title_outranks_body(instance: Path) -> None:
    conn, stats = raw.build_index(instance)
    assert stats.files == 2
    assert raw.search(conn, "invoices") == ["backlog/STORY-1.md", "backlog/STORY-2.md"]
    assert raw.search(conn, "!!!") == []


@given(st.text(max_size=200))
def test_or_query_is_always_valid_fts5(text: str) -> None:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE docs USING fts5(title, body, path UNINDEXED)")
    query = raw.or_query(text)
    if query is not None:
        conn.execute("SELECT * FROM docs WHERE docs MATCH ?", (query,)).fetchall()


def test_bare_process_answers_from_the_index_on_disk(instance: Path, tmp_path: Path) -> None:
    db = tmp_path / "plain.sqlite"
    conn, _ = raw.build_index(instance, db)
    conn.close()
    run = raw.bare_process(db, "login")
    assert run.returncode == 0 and run.wall_s > 0
    out = subprocess.run([sys.executable, "-c", raw.BARE_PROCESS_CODE, str(db), "login"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [{"path": "backlog/STORY-2.md", "title": "Login page"}]
