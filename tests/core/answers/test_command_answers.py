"""The CLI-only commands' answers: each real payload validates against its TypedDict's schema."""

from __future__ import annotations

import threading
from pathlib import Path

import typing_extensions
from revetly_core.answers import (
    COMMAND_TYPES,
    AuditLinksAnswer,
    BackfillAnswer,
    BackfillPlan,
    CheckAnswer,
    DoctorAnswer,
    InitAnswer,
    ManualPage,
    ManualTopics,
    MigrateAnswer,
    PassSummary,
    ReviewPage,
    WatchEvent,
    WatchSummary,
)
from revetly_core.engine import Engine
from revetly_core.writes.gate import GateChoice

from tests.core.answers.conforms import assert_conforms, schema_of
from tests.core.gitrepo import Instance, md
from tests.core.operate.test_migrate import downgrade_to_v1
from tests.core.writes.write_engine import engine
from tests.fixtures.fixture_repo import ADR_TOOLS, build_fixture_repo

DOUBLED = """Intro.

## Acceptance criteria

- Old criterion

## Acceptance criteria

- A CSV holds one row per invoice
"""


def test_every_command_type_is_a_typeddict_schema() -> None:
    for name, answer in COMMAND_TYPES.items():
        schema = schema_of(answer)
        assert schema.get("type") in ("object", "array", None), name
    assert typing_extensions.is_typeddict(PassSummary)


def test_sync_answer(floored: Instance) -> None:
    payload = floored.engine().sync(full=True)
    assert payload["sources"]
    assert_conforms(PassSummary, payload)


def test_check_answer_with_problems_and_dangling_links(winst: Instance) -> None:
    winst.git.write_and_commit({
        "backlog/STORY-0002.md": md("STORY-0002", "Doubled", "story", DOUBLED, status="ready",
                                    cites=["DEC-0009"]),
    }, "doubled and dangling")
    payload = engine(winst).check()
    assert payload["problems"] and payload["dangling_links"]
    assert_conforms(CheckAnswer, payload)


def test_check_repair_answer(winst: Instance) -> None:
    winst.git.write_and_commit({"backlog/STORY-0002.md": md("STORY-0002", "Doubled", "story",
                                                             DOUBLED, status="ready")}, "doubled")
    payload = engine(winst).check(repair=True)
    assert payload["repair"]["wrote"] is True
    assert_conforms(CheckAnswer, payload)
    assert_conforms(CheckAnswer, engine(winst).check_repair())


def test_doctor_answer(floored: Instance) -> None:
    payload = floored.engine().doctor()
    assert payload["sources"] and payload["connect"]
    assert_conforms(DoctorAnswer, payload)


def test_backfill_plan_and_read_answers(floored: Instance) -> None:
    plan = floored.engine().backfill(dry_run=True)
    assert plan["sources"] and plan["sources"][0]["windows"]
    assert_conforms(BackfillPlan, plan)
    read = floored.engine().backfill(max_windows=1)
    assert read["sources"][0]["windows_read"] == 1
    assert_conforms(BackfillAnswer, read)


def test_migrate_answers_dry_run_and_applied(floored: Instance) -> None:
    assert_conforms(MigrateAnswer, floored.engine().migrate(dry_run=True))
    downgrade_to_v1(str(floored.root / ".revetly" / "context.db"))
    priced = floored.engine().migrate(dry_run=True)
    assert priced["steps"] and priced["price"] is not None
    assert_conforms(MigrateAnswer, priced)
    applied = floored.engine().migrate()
    assert "pass" in applied
    assert_conforms(MigrateAnswer, applied)


def test_audit_links_answer(floored: Instance) -> None:
    payload = floored.engine().audit_links()
    assert payload["live_links"] > 0
    assert_conforms(AuditLinksAnswer, payload)


def test_manual_answers() -> None:
    topics = Engine.manual()
    assert topics.get("topics")
    assert_conforms(ManualTopics, topics)
    page = Engine.manual(topics["topics"][0]["topic"])
    assert "text" in page
    assert_conforms(ManualPage, page)


def test_watch_answer_and_its_events(floored: Instance) -> None:
    events: list[WatchEvent] = []
    payload = floored.engine().watch(max_passes=1, stop=threading.Event(), report=events.append)
    assert payload["passes"] == 1
    assert_conforms(WatchSummary, payload)
    assert [e["event"] for e in events] == ["watching", "pass"]
    for event in events:
        assert_conforms(WatchEvent, event)


def test_init_answers(tmp_path: Path) -> None:
    plain = Engine.init(tmp_path / "plain")
    assert plain["created_repository"] is True
    assert_conforms(InitAnswer, plain)
    repo = build_fixture_repo(ADR_TOOLS, tmp_path / "bookings")
    sourced = Engine.init(tmp_path / "inst", source=("adr", str(repo)))
    assert "source" in sourced and "code_repository" in sourced
    assert_conforms(InitAnswer, sourced)


def test_review_pages_answer(winst: Instance) -> None:
    e = engine(winst)
    out = e.submit_draft("Remind late payers", "Send reminders.",
                         ["Reminders go out after 7 days"], gate=GateChoice("app"))
    pages = e.review_pages(out["review_id"])
    assert [p["kind"] for p in pages][-1] == "decision"
    for page in pages:
        assert_conforms(ReviewPage, page)
