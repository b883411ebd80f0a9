"""bench/bench_history.py times the history walk by libgit2 and by git, and both ways give the
same entries every round (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

from tests.core.gitrepo import GitRepo
from tests.support.scripts import load_script

bench = load_script("revetly_bench_history",
                    Path(__file__).resolve().parents[2] / "bench" / "bench_history.py")


def history(root: Path) -> GitRepo:
    from revetly_core.instance.scaffold import default_config_text

    g = GitRepo(root)
    g.write("revetly.toml", default_config_text("acme", []))
    for i in range(10):
        g.write(f"backlog/STORY-{i % 4}.md", f"story {i}\n")
        g.write("src/code.py", f"x = {i}\n")
        g.commit(f"edit {i}")
    return g


def test_each_walk_is_timed_both_ways_with_equal_answers(tmp_path: Path) -> None:
    g = history(tmp_path / "inst")
    result = bench.measure(g.root, rounds=2)
    ways = result["ways"]
    assert len(ways) == 10 and all(len(w["cpu_s"]) == 2 for w in ways.values())
    assert ways["whole history, libgit2"]["entries"] == ways["whole history, git log"]["entries"] == 10
    assert ways["last 3 + scoped diff, git log"]["entries"] == 3


def test_the_commits_read_is_timed_both_ways(tmp_path: Path) -> None:
    g = history(tmp_path / "code")
    ways = bench.measure_commits(g.root, rounds=1)["ways"]
    assert {w["entries"] for w in ways.values()} == {10}
