"""[served] allowed_origins: the check, the refusal's body and audit line, and what doctor
makes of the refusals the audit log keeps."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.auth.origins import (
    CORS_EXPOSED_HEADERS,
    ORIGIN_REFUSED,
    normal_origin,
    origin_allowed,
    origin_refusal_body,
    origin_refused_line,
    refused_origin_warning,
    refused_origins,
)

AT = dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.UTC)
hosts = st.from_regex(r"[a-z][a-z0-9-]{0,20}\.example", fullmatch=True)


def test_an_origin_is_compared_without_case_or_trailing_slash() -> None:
    assert normal_origin(" HTTPS://Chat.Example.com/ ") == "https://chat.example.com"


def test_a_request_without_an_origin_is_not_from_a_page_and_passes() -> None:
    assert origin_allowed(None, set()) is True


@given(hosts, st.booleans(), st.booleans())
def test_a_declared_origin_passes_however_it_is_spelled(host: str, upper: bool,
                                                        slash: bool) -> None:
    sent = f"https://{host.upper() if upper else host}{'/' if slash else ''}"
    assert origin_allowed(sent, {f"https://{host}"})
    assert not origin_allowed(sent, {f"http://{host}"})  # another scheme is another origin


def test_the_refusal_names_the_setting_that_would_admit_the_origin() -> None:
    body = origin_refusal_body("https://evil.example")
    assert body["error"] == "origin_refused" and body["setting"] == "served.allowed_origins"
    assert "https://evil.example" in body["detail"] and "allowed_origins" in body["fix"]


def test_the_audit_line_of_a_refusal_has_no_subject_and_a_bounded_origin() -> None:
    line = origin_refused_line("https://" + "x" * 500, "POST", "/mcp", at=AT)
    assert line["sub"] is None and line["tool"] is None and line["outcome"] == ORIGIN_REFUSED
    assert len(line["origin"]) == 200 and line["request"] == "POST /mcp"
    assert line["at"].startswith("2026-12-02T10:00:00")


def _line(origin: str, minute: int) -> dict[str, object]:
    return origin_refused_line(origin, "POST", "/mcp", at=AT + dt.timedelta(minutes=minute))


def test_refused_origins_are_counted_with_first_and_last_and_newest_first() -> None:
    lines = [_line("https://a.example", 1), _line("https://b.example", 2),
             _line("https://A.example/", 5),
             {"at": "2026-12-02T10:03:00", "tool": "search_context", "outcome": "ok"}]
    found = refused_origins(lines, [])
    assert [(e["origin"], e["refused"]) for e in found] == [("https://a.example", 2),
                                                           ("https://b.example", 1)]
    assert found[0]["first_at"] < found[0]["last_at"]


def test_an_origin_declared_since_its_refusals_is_no_longer_reported() -> None:
    lines = [_line("https://a.example", 1), _line("https://b.example", 2)]
    assert [e["origin"] for e in refused_origins(lines, ["https://A.example/"])] == [
        "https://b.example"]


def test_the_doctor_warning_says_what_the_page_user_sees_and_what_to_declare() -> None:
    (entry,) = refused_origins([_line("https://chat.example", 1)], [])
    warning = refused_origin_warning(entry)
    assert warning["code"] == "origin-refused"
    assert "lost its session" in warning["detail"] and "1 request(s)" in warning["detail"]
    assert '"https://chat.example"' in warning["fix"] and "allowed_origins" in warning["fix"]


def test_a_page_can_read_the_session_id_it_is_handed() -> None:
    assert "mcp-session-id" in CORS_EXPOSED_HEADERS
