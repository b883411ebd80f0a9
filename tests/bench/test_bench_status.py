"""bench/bench_status.py times every way of learning what changed, and each gives the same
answer on the same work tree (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

from tests.core.gitrepo import GitRepo
from tests.support.scripts import load_script

bench = load_script("revetly_bench_status",
                    Path(__file__).resolve().parents[2] / "bench" / "bench_status.py")


def test_every_way_reports_the_one_edited_file(tmp_path: Path) -> None:
    g = GitRepo(tmp_path / "inst")
    for i in range(3):
        g.write(f"backlog/STORY-{i}.md", f"story {i}\n")
    g.write("notes/DEC-1.md", "decision\n")
    g.commit("files")
    g.write("backlog/STORY-1.md", "story 1, edited\n")
    result = bench.measure(g.root, rounds=2)
    ways = result["ways"]
    assert len(ways) == 7 and all(len(w["cpu_s"]) == 2 for w in ways.values())
    status_ways = {name: w["answer"] for name, w in ways.items() if "walk" not in name}
    assert set(status_ways.values()) == {1}  # each names the one edited file
    assert ways["python stat walk (lstat per entry, fd-relative)"]["answer"] == 4
    assert b"UNTR" not in (g.root / ".git" / "index").read_bytes()  # the cache is taken out
