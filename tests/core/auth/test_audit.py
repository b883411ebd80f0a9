"""The audit trail: one line per served call, appended."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

from revetly_core.auth import AuditLog, audit_line, outcome_of, project_of


def test_an_outcome_is_the_refusal_code_the_status_or_ok() -> None:
    assert outcome_of({"refusal": {"code": "read-only"}}) == "refused:read-only"
    assert outcome_of({"status": "awaiting-review"}) == "awaiting-review"
    assert outcome_of({"artifacts": []}) == "ok"


def test_the_project_is_the_answers_own_then_the_one_asked() -> None:
    assert project_of({"project": "a"}, {"project": "b"}) == "a"
    assert project_of({"refusal": {"project": "c"}}, {}) == "c"
    assert project_of({}, {"project": "b"}) == "b"
    assert project_of({"projects": ["a", "b"]}, {}) == "a,b"
    assert project_of({}, {}) is None


def test_a_line_names_subject_issuer_tool_project_outcome() -> None:
    at = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    line = audit_line({"sub": "u", "iss": "i", "email": "u@x"}, "get_artifact", "p", "ok", at=at)
    assert line == {"at": "2026-01-02T03:04:05.000+00:00", "sub": "u", "iss": "i",
                    "tool": "get_artifact", "project": "p", "outcome": "ok", "email": "u@x"}


def test_an_anonymous_line_names_nobody() -> None:
    line = audit_line(None, "search_context", None, "ok")
    assert line["sub"] is None and line["iss"] is None


def test_lines_are_appended_whole_under_concurrent_writers(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "logs" / "audit.jsonl")
    log.path.parent.mkdir()
    log.path.write_text('{"earlier": true}\n')

    def write(n: int) -> None:
        for i in range(50):
            log.append(audit_line({"sub": f"u{n}", "iss": "i"}, "t", None, f"ok-{i}"))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = log.lines()
    assert lines[0] == {"earlier": True}
    assert len(lines) == 201


def test_a_log_that_cannot_be_written_never_fails_the_call(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    AuditLog(tmp_path / "file" / "audit.jsonl").append({"tool": "t"})  # parent is a file


def test_a_relative_audit_log_lives_inside_the_instance(tmp_path: Path) -> None:
    from revetly_core.auth import audit_log_path

    assert audit_log_path(tmp_path, ".revetly/audit.jsonl") == tmp_path / ".revetly" / "audit.jsonl"
    assert audit_log_path(tmp_path, "/var/log/revetly.jsonl") == Path("/var/log/revetly.jsonl")


def test_reading_the_log_back_reads_only_its_newest_bytes(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    for i in range(200):
        log.append({"n": i, "pad": "p" * 40})
    newest = log.lines(max_bytes=1000)
    assert newest and newest[-1]["n"] == 199 and len(newest) < 20
    assert [x["n"] for x in newest] == list(range(200 - len(newest), 200))  # no cut line kept
    assert len(log.lines()) == 200
