"""The --json twin of each CLI-only command prints a payload its core answer type validates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from revetly_core.answers import (
    AuditLinksAnswer,
    BackfillPlan,
    CheckAnswer,
    DoctorAnswer,
    InitAnswer,
    ManualPage,
    ManualTopics,
    MigrateAnswer,
    PassEvent,
    PassSummary,
    StoppedEvent,
    WatchingEvent,
)

from tests.cli.test_cli_app import STORY, commit_all, revetly
from tests.core.answers.conforms import assert_conforms

DOUBLED = STORY.replace("STORY-0001", "STORY-0002").replace(
    "## Acceptance criteria", "## Acceptance criteria\n\n- Old criterion\n\n## Acceptance criteria")


@pytest.fixture()
def synced(tmp_path: Path) -> Path:
    root = tmp_path / "inst"
    made = revetly("init", str(root), "--json")
    assert made.returncode == 0, made.stderr
    assert_conforms(InitAnswer, json.loads(made.stdout))
    (root / "backlog" / "STORY-0001.md").write_text(STORY)
    commit_all(root, "add a story")
    return root


def _json(*args: str, ok: tuple[int, ...] = (0,), env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    done = revetly(*args, "--json", env=env)
    assert done.returncode in ok, done.stderr
    payload: dict = json.loads(done.stdout)  # type: ignore[type-arg]
    return payload


def test_sync_and_check_json(synced: Path) -> None:
    assert_conforms(PassSummary, _json("sync", "--instance", str(synced)))
    assert_conforms(CheckAnswer, _json("check", "--instance", str(synced)))


def test_check_repair_json(synced: Path) -> None:
    (synced / "backlog" / "STORY-0002.md").write_text(DOUBLED)
    commit_all(synced, "a doubled story")
    assert _json("sync", "--instance", str(synced))["outcome"] == "succeeded"
    found = _json("check", "--instance", str(synced), ok=(0, 1))
    assert [p["code"] for p in found["problems"]] == ["doubled-criteria"]
    assert_conforms(CheckAnswer, found)
    repaired = _json("check", "--repair", "--instance", str(synced),
                     env={"REVETLY_ACTOR": "Dana Reyes"})
    assert repaired["repair"]["wrote"] is True
    assert_conforms(CheckAnswer, repaired)


def test_operator_commands_json(synced: Path) -> None:
    inst = ("--instance", str(synced))
    _json("sync", *inst)
    assert_conforms(DoctorAnswer, _json("doctor", *inst, ok=(0, 1)))
    assert_conforms(BackfillPlan, _json("backfill", "--dry-run", *inst))
    assert_conforms(MigrateAnswer, _json("migrate", "--dry-run", *inst))
    assert_conforms(AuditLinksAnswer, _json("audit-links", *inst))


def test_manual_json() -> None:
    topics = _json("manual")
    assert_conforms(ManualTopics, topics)
    assert_conforms(ManualPage, _json("manual", "show", topics["topics"][0]["topic"]))


def test_watch_json_ends_with_its_summary(synced: Path) -> None:
    done = revetly("watch", "--instance", str(synced), "--max-passes", "1", "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["event"] for e in events] == ["watching", "pass", "stopped"]
    assert_conforms(WatchingEvent, events[0])
    assert_conforms(PassEvent, events[1])
    assert_conforms(StoppedEvent, events[2])
