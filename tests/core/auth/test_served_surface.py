"""The served surface: the caller's principal on writes, the read-only switch, the audit line."""

from __future__ import annotations

from pathlib import Path

import pytest
from revetly_core.auth import (
    AuditLog,
    Caller,
    ServedSurface,
    is_write,
    read_only_refusal,
    served_call_arguments,
)

from revetly_core import Engine

ANA = {"sub": "u-ana", "iss": "https://auth.example/", "name": "Ana", "email": "ana@example.com"}


@pytest.fixture()
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setenv("REVETLY_ACTOR", "Server Env Person")
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    root = tmp_path / "inst"
    Engine.init(root)
    e = Engine.open(root)
    e.sync()
    e.capture_mode = "none"
    return e


def test_writes_and_the_deciding_reviewer_tools_are_writes() -> None:
    assert is_write("submit_draft") and is_write("record_conversation")
    assert is_write("resolve_review") and is_write("withdraw_review")
    assert not is_write("search_context") and not is_write("review_state")


def test_a_write_takes_the_callers_principal_and_the_served_flag(engine: Engine) -> None:
    extra = served_call_arguments(engine.resolve_review, Caller(ANA))
    assert extra["approver"].name == "u-ana" and extra["approver"].verified
    assert extra["served"] is True
    assert served_call_arguments(engine.submit_draft, Caller(ANA))["drafter"].name == "u-ana"
    assert served_call_arguments(engine.set_status, Caller(ANA))["principal"].name == "u-ana"
    assert served_call_arguments(engine.search_context, Caller(ANA)) == {}


def test_an_anonymous_caller_resolves_locally(engine: Engine) -> None:
    assert served_call_arguments(engine.record_conversation, Caller()) == {}


def test_a_note_recorded_over_the_endpoint_is_the_tokens_not_the_servers(engine: Engine) -> None:
    surface = ServedSurface(engine, caller=lambda: Caller(ANA))
    answer = surface.call("record_conversation", {"title": "Kickoff", "body": "We met."})
    note = next((engine.root / "notes").rglob("*.md")).read_text()
    assert "u-ana" in note and "Server Env Person" not in note, answer


def test_read_only_refuses_every_write_by_name_and_serves_reads(engine: Engine) -> None:
    surface = ServedSurface(engine, read_only=True)
    refused = surface.call("record_conversation", {"title": "t", "body": "b"})
    assert refused["refusal"]["code"] == "read-only"
    assert refused["refusal"]["tool"] == "record_conversation"
    assert refused["refusal"]["wrote"] is False
    assert "refusal" not in surface.call("context_health", {})
    assert read_only_refusal("set_status").extra["setting"] == "served.read_only"


def test_every_call_leaves_one_audit_line(engine: Engine, tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    surface = ServedSurface(engine, caller=lambda: Caller(ANA), read_only=True, audit=log)
    surface.call("context_health", {})
    surface.call("set_status", {"artifact_id": "STORY-1", "status": "done"})
    lines = log.lines()
    assert [(x["sub"], x["iss"], x["tool"], x["outcome"]) for x in lines] == [
        ("u-ana", ANA["iss"], "context_health", "ok"),
        ("u-ana", ANA["iss"], "set_status", "refused:read-only")]
    assert lines[0]["project"] == "inst"
