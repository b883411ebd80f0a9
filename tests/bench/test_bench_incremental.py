"""bench/bench_incremental.py runs both rounds and each one-file pass updates one artifact
(no timing asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.gitrepo import Instance, md
from tests.support.scripts import load_script

bench = load_script("revetly_bench_incremental",
                    Path(__file__).resolve().parents[2] / "bench" / "bench_incremental.py")


def test_both_rounds_run_and_each_edit_updates_one_artifact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    inst = Instance(tmp_path / "acme")
    for n in range(1, 4):
        inst.git.write(f"backlog/STORY-{n}.md", md(f"STORY-{n}", f"Story {n}"))
    inst.git.commit("stories")
    inst.sync()
    result = bench.measure(inst.root, {"this tree": None}, runs=2)
    quiet = result["nothing changed"]["this tree"]["passes"]
    edited = result["one edited file"]["this tree"]["passes"]
    assert [p["changed"]["updated"] for p in quiet] == [0, 0]
    assert [p["changed"]["updated"] for p in edited] == [1, 1]
    assert all(p["cpu_s"] >= p["git_cpu_s"] >= 0 for p in quiet + edited)
