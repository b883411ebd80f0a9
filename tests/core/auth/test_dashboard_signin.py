"""The dashboard's sign-in rules (revetly_core.auth.dashboard_signin), one test each."""

from __future__ import annotations

from revetly_core.auth.dashboard_signin import (
    MAX_PENDING,
    SESSION_TTL,
    SIGNIN_TTL,
    DashboardSignIns,
    csrf_refusal,
    dashboard_callback_url,
    dashboard_origin_refusal,
    unconfigured_view,
)

BASE = "http://127.0.0.1:8765"


def test_the_callback_is_under_the_dashboard_path() -> None:
    assert dashboard_callback_url(BASE + "/") == f"{BASE}/dashboard/callback"


def test_an_action_carries_the_dashboards_own_origin() -> None:
    assert dashboard_origin_refusal(BASE, BASE) is None
    assert dashboard_origin_refusal(BASE.upper().replace("HTTP", "http") + "/", BASE) is None
    for origin in ("http://app.example", "http://127.0.0.1:9999", "null", None):
        refusal = dashboard_origin_refusal(origin, BASE)
        assert refusal is not None and refusal.code == "refused", origin
        assert refusal.extra["wrote"] is False


def test_a_form_echoes_its_sessions_csrf_value_exactly() -> None:
    assert csrf_refusal("s3cret", "s3cret") is None
    for given in ("s3cre", "", None, ["s3cret"]):
        refusal = csrf_refusal(given, "s3cret")
        assert refusal is not None and refusal.code == "refused", given


def test_a_started_sign_in_is_taken_once_and_expires() -> None:
    now = [0.0]
    signins = DashboardSignIns(clock=lambda: now[0])
    state, verifier = signins.start()
    assert signins.finish(state) == verifier
    assert signins.finish(state) is None
    late, _ = signins.start()
    now[0] += SIGNIN_TTL + 1
    assert signins.finish(late) is None
    assert signins.finish(None) is None and signins.finish("unknown") is None


def test_started_sign_ins_are_bounded() -> None:
    signins = DashboardSignIns()
    first, _ = signins.start()
    for _ in range(MAX_PENDING):
        signins.start()
    assert signins.finish(first) is None
    assert len(signins._pending) == MAX_PENDING


def test_a_session_lives_until_its_ttl_or_sign_out() -> None:
    now = [0.0]
    signins = DashboardSignIns(clock=lambda: now[0])
    sid = signins.open("token", {"sub": "dana"})
    session = signins.session(sid)
    assert session is not None and session.claims == {"sub": "dana"} and len(session.csrf) >= 32
    assert signins.session("another") is None and signins.session(None) is None
    now[0] += SESSION_TTL + 1
    assert signins.session(sid) is None
    kept = signins.open("token", {"sub": "dana"})
    signins.close(kept)
    assert signins.session(kept) is None


def test_the_unconfigured_screen_names_what_is_missing() -> None:
    view = unconfigured_view(["the application's FeedbackDashboard binding"])
    assert view["status"] == "unconfigured" and view["missing"] == [
        "the application's FeedbackDashboard binding"]
    assert "FeedbackDashboard" in view["fix"]
