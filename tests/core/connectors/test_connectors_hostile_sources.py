"""Sources read in place (Backlog.md, ADR) under hostile files: each fails alone, a link out of
the source repository is never followed, and check names each one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from revetly_core import Engine
from tests.core.gitrepo import GitRepo

SECRET = "zanzibarsecretword"
TASK = "---\nid: {id}\ntitle: {title}\nstatus: To Do\n{extra}---\n\nbody {title}\n"


def _outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside.md"
    out.write_text(TASK.format(id="back-900", title=SECRET, extra=""))
    return out


def _problems(engine: Engine) -> dict[str, str]:
    return {str(p["path"]): p["code"] for p in engine.check()["problems"]}


@pytest.fixture()
def backlog_md(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    repo = GitRepo(tmp_path / "src")
    repo.write("backlog/config.yml", "project_name: t\ntask_prefix: back\n")
    for i in (1, 2):
        repo.write(f"backlog/tasks/back-{i} - Good.md",
                   TASK.format(id=f"back-{i}", title=f"Good {i}", extra=""))
    repo.write("backlog/tasks/back-3 - Nan.md",
               TASK.format(id="back-3", title="Nan", extra="ordinal: .nan\n"))
    repo.write("backlog/tasks/back-4 - Laughs.md", TASK.format(
        id="back-4", title="Laughs", extra="a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b ["
        + ",".join(["*a"] * 10) + "]\nc: &c [" + ",".join(["*b"] * 10) + "]\nd: ["
        + ",".join(["*c"] * 20) + "]\n"))
    os.symlink(_outside(tmp_path), repo.root / "backlog" / "tasks" / "back-5 - Leak.md")
    os.symlink("/dev/zero", repo.root / "backlog" / "tasks" / "back-6 - Zero.md")
    repo.commit("a hostile Backlog.md project")
    Engine.init(tmp_path / "inst", source=("backlog-md", str(repo.root)))
    return Engine.open(tmp_path / "inst")


def test_a_backlog_md_source_lands_its_good_tasks_beside_hostile_ones(backlog_md: Engine) -> None:
    result = backlog_md.sync()
    assert {s["source"]: s["outcome"] for s in result["sources"]}.get(
        "backlog-md/src", "succeeded") == "succeeded"
    assert all(s["outcome"] == "succeeded" for s in result["sources"])
    ids = {a["artifact_id"] for a in backlog_md.list_backlog()["items"]}
    assert {"BACK-1", "BACK-2"} <= ids and not ids & {"BACK-3", "BACK-4", "BACK-5", "BACK-6"}
    assert backlog_md.search_context(SECRET)["artifacts"] == []
    problems = _problems(backlog_md)
    assert problems["backlog/tasks/back-3 - Nan.md"] == "bad-value"
    assert problems["backlog/tasks/back-4 - Laughs.md"] == "yaml-bounds"
    assert problems["backlog/tasks/back-5 - Leak.md"] == "outside-repository"
    assert problems["backlog/tasks/back-6 - Zero.md"] == "outside-repository"
    assert backlog_md.sync()["outcome"] == "succeeded"


def test_an_adr_source_skips_a_record_with_a_bad_date_and_one_linking_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    repo = GitRepo(tmp_path / "src")
    repo.write("docs/decisions/0001-good.md", "# 1. Good\n\nStatus: accepted\n")
    repo.write("docs/decisions/0002-bad-date.md",
               "---\ntitle: Bad\ndate: 2025-02-30\n---\n# 2. Bad\n")
    os.symlink(_outside(tmp_path), repo.root / "docs" / "decisions" / "0003-leak.md")
    repo.write("docs/decisions/\uff10\uff10\uff10\uff14-wide.md", "# 4. Wide\n")
    repo.commit("decisions")
    Engine.init(tmp_path / "inst", source=("adr", str(repo.root)))
    engine = Engine.open(tmp_path / "inst")
    result = engine.sync()
    assert all(s["outcome"] == "succeeded" for s in result["sources"])
    assert engine.get_artifact("ADR-0001")["title"] == "Good"
    problems = _problems(engine)
    assert problems["docs/decisions/0002-bad-date.md"] == "bad-value"
    assert problems["docs/decisions/0003-leak.md"] == "outside-repository"
    assert problems["docs/decisions/\uff10\uff10\uff10\uff14-wide.md"] == "no-number"
    assert engine.search_context(SECRET)["artifacts"] == []


def test_a_parse_that_raises_fails_only_its_file() -> None:
    from revetly_core.connectors.base import FileProblem
    from revetly_core.connectors.gitfolder import guarded

    def explodes(path: str) -> str:
        raise RecursionError(f"too deep in {path}")

    problem = guarded("adr/x", "docs/decisions/0001-a.md", "abc", explodes, "0001-a.md")
    assert isinstance(problem, FileProblem)
    assert (problem.path, problem.code, problem.blob) == ("docs/decisions/0001-a.md",
                                                          "unreadable", "abc")
    assert "RecursionError" in problem.detail
    assert guarded("adr/x", "p", None, str.upper, "fine") == "FINE"
