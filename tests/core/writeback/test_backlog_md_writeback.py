"""Backlog.md write-back end to end: the Tally fixture as a real git repository, read in place
by an instance that declares ``write_back = true``; approved drafts and status flips land in
the project's own format, and the next pass reads them back as the same items."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest
from revetly_core.answers.writes import ReviewState, StatusAnswer
from revetly_core.instance.layout import InstancePaths
from revetly_core.markdown.frontmatter import split_frontmatter
from revetly_core.refusal import Refusal
from revetly_core.writeback.backlog_md_drafts import BACKLOG_MD_CRASH_POINTS
from revetly_core.writes.crash import CRASH_EXIT

from revetly_core import Engine
from tests.core.answers.conforms import assert_conforms
from tests.fixtures.fixture_repo import BACKLOG_MD, build_fixture_repo

DESCRIPTION = "Remind a client a week after an invoice is due."
CRITERIA = ["A reminder goes out seven days after the due date", "Paid invoices get none"]


def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    monkeypatch.setenv("REVETLY_ACTOR", "Dana Reyes")
    monkeypatch.setenv("REVETLY_REVIEWER", "Ana Person")
    for name in ("REVETLY_ACTOR_KIND", "REVETLY_SERVICE_IDENTITY", "REVETLY_CRASH_AT"):
        monkeypatch.delenv(name, raising=False)


def _tally(base: Path, *, write_back: bool) -> tuple[Path, Engine]:
    repo = build_fixture_repo(BACKLOG_MD, base / "tally")
    Engine.init(base / "inst", source=("backlog-md", str(repo)))
    if write_back:
        toml = base / "inst" / "revetly.toml"
        text = toml.read_text()
        assert text.count("[[connectors.backlog-md]]\n") == 1
        toml.write_text(text.replace("[[connectors.backlog-md]]\n",
                                     "[[connectors.backlog-md]]\nwrite_back = true\n"))
    engine = Engine.open(base / "inst")
    engine.capture_mode = "none"
    engine.sync()
    return repo, engine


@pytest.fixture()
def tally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine]]:
    _env(monkeypatch)
    yield _tally(tmp_path, write_back=True)


def _approve(engine: Engine, title: str = "Dunning reminders", parent: str | None = None
             ) -> dict[str, Any]:
    rid = engine.submit_draft(title, DESCRIPTION, CRITERIA, parent)["review_id"]
    return dict(engine.resolve_review(rid, "approve"))


def _task_files(repo: Path) -> set[str]:
    return {p.relative_to(repo).as_posix() for p in (repo / "backlog").rglob("*.md")}


def _instance_head(engine: Engine) -> str:
    return str(pygit2.Repository(str(engine.root)).head.target)


def test_an_approved_draft_lands_as_the_projects_next_task(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    before = _task_files(repo)
    head = _instance_head(engine)
    state = _approve(engine, parent="BACK-6")
    assert state["status"] == "applied" and state["artifact_id"] == "BACK-29"
    assert state["path"] == "backlog/tasks/back-29 - Dunning-reminders.md"
    assert state["source"] == "backlog-md/tally" and state["commit"] is None
    assert_conforms(ReviewState, state)
    assert _task_files(repo) - before == {state["path"]}
    front, body = split_frontmatter((repo / state["path"]).read_text())
    assert (front["id"], front["title"], front["status"]) == ("BACK-29", "Dunning reminders",
                                                              "To Do")
    assert front["parent_task_id"] == "BACK-6"
    assert "<!-- AC:BEGIN -->\n- [ ] #1 A reminder goes out seven days" in body
    assert not list((engine.root / "backlog").glob("STORY-*.md"))
    assert _instance_head(engine) == head  # nothing landed in the instance's own backlog


def test_the_next_pass_reads_the_approved_task_back_as_the_same_item(
        tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    _approve(engine, parent="BACK-6")
    engine.sync()
    got = engine.get_artifact("BACK-29")
    assert got["title"] == "Dunning reminders" and got["status"] == "ready"
    assert got["acceptance_criteria"] == CRITERIA and got["parent"] == "BACK-6"
    assert got["artifact_type"] == "task"
    assert engine.check()["severity_counts"].get("error", 0) == 0


def test_two_approvals_take_two_ids(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    assert [_approve(engine, t)["artifact_id"] for t in ("One", "Two")] == ["BACK-29", "BACK-30"]


def test_a_status_flip_is_written_into_the_tasks_own_file(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    path = repo / "backlog/tasks/back-5 - Idle-detection.md"
    before = path.read_text()
    out = engine.set_status("BACK-5", "in-progress", claimed_by="agent-7")
    assert out["writeback"]["not_landed"] == []
    assert out["writeback"]["landed"][0]["ref"] == "tasks/back-5 - Idle-detection.md"
    after = path.read_text()
    front, _ = split_frontmatter(after)
    assert front["status"] == "In Progress" and "updated_date" in front
    changed = [ln for ln in after.splitlines() if ln not in before.splitlines()]
    assert [ln.split(":")[0] for ln in changed] == ["status", "updated_date"]
    assert out["claim"]["by"] == "agent-7" and "claim_kept" in out
    assert_conforms(StatusAnswer, out)
    engine.sync()
    assert engine.get_artifact("BACK-5")["status"] == "in-progress"


def test_a_second_claimant_is_refused_from_the_kept_claim(tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    engine.set_status("BACK-5", "in-progress", claimed_by="agent-7")
    again = engine.set_status("BACK-5", "in-progress", claimed_by="agent-9")
    assert again["status"] == "refused"


def test_shipping_writes_the_delivery_note_once(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    path = repo / "backlog/tasks/back-5 - Idle-detection.md"
    out = engine.set_status("BACK-5", "done", verdicts=["met", "met"])
    did = out["delivery"]["artifact_id"]
    text = path.read_text()
    assert split_frontmatter(text)[0]["status"] == "Done"
    marker = f"<!-- revetly:delivery {did} -->"
    assert text.count(marker) == 1 and "<!-- SECTION:NOTES:BEGIN -->" in text
    engine.set_status("BACK-5", "done", verdicts=["met", "met"])
    assert path.read_text().count(marker) == 1
    engine.sync()
    assert engine.get_artifact("BACK-5")["status"] == "done"


def test_discarding_moves_the_task_into_the_archive(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    out = engine.set_status("BACK-5", "discarded", reason="no longer wanted")
    assert out["writeback"]["landed"][0]["ref"] == "archive/tasks/back-5 - Idle-detection.md"
    assert not (repo / "backlog/tasks/back-5 - Idle-detection.md").exists()
    engine.sync()
    assert engine.get_artifact("BACK-5")["status"] == "discarded"


def test_reopening_a_completed_task_moves_it_back_to_tasks(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    out = engine.set_status("BACK-21", "in-progress")
    assert out["writeback"]["landed"][0]["ref"] == "tasks/back-21 - Install-script.md"
    assert not (repo / "backlog/completed/back-21 - Install-script.md").exists()
    engine.sync()
    assert engine.get_artifact("BACK-21")["status"] == "in-progress"


def test_an_archived_task_set_ready_comes_back_from_the_archive(
        tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    engine.set_status("BACK-26", "ready")
    assert (repo / "backlog/tasks/back-26 - Web-dashboard.md").exists()
    engine.sync()
    assert engine.get_artifact("BACK-26")["status"] == "ready"


def test_a_draft_of_the_project_is_not_flipped_here(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    before = {p: (repo / p).read_bytes() for p in _task_files(repo)}
    with pytest.raises(Refusal) as exc:
        engine.set_status("DRAFT-1", "ready")
    assert exc.value.code == "tracker-cannot-hold" and "promote" in exc.value.fix
    assert {p: (repo / p).read_bytes() for p in _task_files(repo)} == before


def test_a_task_two_files_carry_is_refused_naming_the_copy(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    before = {p: (repo / p).read_bytes() for p in _task_files(repo)}
    with pytest.raises(Refusal) as exc:
        engine.set_status("BACK-12", "in-progress")
    assert exc.value.code == "ambiguous"
    assert {p: (repo / p).read_bytes() for p in _task_files(repo)} == before


def test_a_copy_in_the_archive_is_never_written_over(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    live = repo / "backlog/tasks/back-5 - Idle-detection.md"
    copy = repo / "backlog/archive/tasks/back-5 - Idle-detection.md"
    copy.write_text(live.read_text().replace("Detect an idle", "An old copy: detect an idle"))
    kept = copy.read_bytes()
    engine.sync()
    with pytest.raises(Refusal) as exc:
        engine.set_status("BACK-5", "discarded", reason="dropped")
    assert exc.value.code == "ambiguous"
    assert copy.read_bytes() == kept and live.exists()


def test_a_status_the_project_has_no_word_for_is_refused(tally: tuple[Path, Engine]) -> None:
    repo, engine = tally
    before = _task_files(repo)
    with pytest.raises(Refusal) as exc:
        engine.set_status("BACK-5", "draft")
    assert exc.value.code == "tracker-cannot-hold"
    assert _task_files(repo) == before


def test_without_write_back_the_project_is_only_read(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _env(monkeypatch)
    repo, engine = _tally(tmp_path, write_back=False)
    before = {p: (repo / p).read_bytes() for p in _task_files(repo)}
    state = _approve(engine)
    assert state["artifact_id"].startswith("STORY-")
    with pytest.raises(Refusal) as exc:
        engine.set_status("BACK-5", "in-progress")
    assert exc.value.code == "not-in-this-store"
    assert "writeback" not in engine.set_status("BACK-5", "done", verdicts=["met", "met"])
    assert {p: (repo / p).read_bytes() for p in _task_files(repo)} == before


def test_a_drafts_parent_outside_the_project_is_refused_before_review(
        tally: tuple[Path, Engine]) -> None:
    _, engine = tally
    with pytest.raises(Refusal) as exc:
        engine.submit_draft("Orphan", DESCRIPTION, CRITERIA, "DECISION-4")
    assert exc.value.code == "not-in-this-store"
    assert engine.list_reviews("all")["reviews"] == []


APPROVE_SCRIPT = """
import sys
from revetly_core import Engine
engine = Engine.open(sys.argv[1])
engine.capture_mode = "none"
engine.resolve_review(sys.argv[2], "approve")
"""


@pytest.mark.parametrize("point", BACKLOG_MD_CRASH_POINTS)
def test_an_approval_killed_mid_write_lands_once_when_approved_again(
        tally: tuple[Path, Engine], point: str) -> None:
    repo, engine = tally
    before = _task_files(repo)
    rid = engine.submit_draft("Dunning reminders", DESCRIPTION, CRITERIA)["review_id"]
    env = {**os.environ, "REVETLY_CRASH_AT": point}
    killed = subprocess.run([sys.executable, "-c", APPROVE_SCRIPT, str(engine.root), rid],
                            env=env, capture_output=True, check=False)
    assert killed.returncode == CRASH_EXIT, killed.stderr.decode()
    assert engine.review_state(rid)["status"] == "pending"
    state = engine.resolve_review(rid, "approve")
    assert state["status"] == "applied" and state["artifact_id"] == "BACK-29"
    assert _task_files(repo) - before == {"backlog/tasks/back-29 - Dunning-reminders.md"}
    assert not list(InstancePaths(engine.root).state.glob("writeback/drafts/*.json"))
