"""The feedback dashboard over plain HTTP: a real application process serving it on the engine's
HTTP stack, the test issuer, and httpx making the requests a browser (or a forger) would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.mcp.http.dashboard_served import (
    APP_ORIGIN,
    ServedDashboard,
    csrf_of,
    served_dashboard,
    sign_in,
)
from tests.mcp.http.served_handles import IssuerHandle, ServeFactory, auth_block


@pytest.fixture()
def app(tmp_path: Path, issuer: IssuerHandle) -> Iterator[ServedDashboard]:
    with served_dashboard(tmp_path, issuer) as served:
        yield served


@pytest.fixture()
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30.0) as http:
        yield http


def post_action(client: httpx.Client, app: ServedDashboard, fields: dict[str, str],
                origin: str | None = None) -> httpx.Response:
    headers = {"Origin": app.base if origin is None else origin} if origin != "" else {}
    return client.post(f"{app.base}/dashboard/action", data=fields, headers=headers)


def test_without_a_session_the_screen_sends_you_to_sign_in_at_the_issuer(
        app: ServedDashboard, client: httpx.Client, issuer: IssuerHandle) -> None:
    answer = client.get(app.url)
    assert answer.status_code == 303
    location = urlsplit(answer.headers["location"])
    query = parse_qs(location.query)
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{issuer.base}/authorize"
    assert query["redirect_uri"] == [f"{app.base}/dashboard/callback"]
    assert query["code_challenge_method"] == ["S256"] and query["response_type"] == ["code"]


def test_an_action_without_a_session_is_401_and_changes_nothing(
        app: ServedDashboard, client: httpx.Client) -> None:
    answer = post_action(client, app, {"csrf": "x", "action": "approve",
                                       "target": app.world.pending_id})
    assert answer.status_code == 401
    assert app.decision(app.world.pending_id) is None


def test_the_signed_in_owner_sees_the_real_counts_and_the_proposals(
        app: ServedDashboard, client: httpx.Client) -> None:
    page = sign_in(client, app.base, "dana")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert "Signed in as <strong id='signed-in'>Dana</strong> (owner)" in page.text
    assert "<td class='scheduled'>3</td><td class='observed'>2</td><td class='missing'>1</td>" in page.text
    assert "<td class='state'>partial</td>" in page.text
    assert f"id='approve-{app.world.pending_id}'" in page.text
    assert f"id='suspend-{app.world.active_id}'" in page.text
    assert "The built-in qualifier is diagnostic and always inconclusive" in page.text
    assert app.world.owner not in page.text


def test_an_action_from_another_origin_is_refused(app: ServedDashboard, client: httpx.Client) -> None:
    csrf = csrf_of(sign_in(client, app.base, "dana").text)
    fields = {"csrf": csrf, "action": "approve", "target": app.world.pending_id}
    for origin in (APP_ORIGIN, "http://evil.example", ""):
        refused = post_action(client, app, fields, origin=origin)
        assert refused.status_code == 403, origin
    assert app.decision(app.world.pending_id) is None


def test_a_forged_csrf_value_is_refused(app: ServedDashboard, client: httpx.Client) -> None:
    sign_in(client, app.base, "dana")
    for forged in ("forged", ""):
        refused = post_action(client, app, {"csrf": forged, "action": "suspend",
                                            "target": app.world.active_id})
        assert refused.status_code == 403 and "does not come from the dashboard page" in refused.text
    assert app.state(app.world.active_id) == "active"


def test_a_non_owner_is_refused_whatever_the_page_showed(
        app: ServedDashboard, client: httpx.Client) -> None:
    page = sign_in(client, app.base, "bo")
    assert page.status_code == 200 and "(owner)" not in page.text
    assert "proposals are the owner&#x27;s review surface" in page.text
    assert "id='approve-" not in page.text
    csrf = csrf_of(page.text)
    for fields in ({"action": "approve", "target": app.world.pending_id},
                   {"action": "suspend", "target": app.world.active_id}):
        refused = post_action(client, app, {"csrf": csrf, **fields})
        assert refused.status_code == 403 and "<p id='code'>not-owner</p>" in refused.text
    assert app.decision(app.world.pending_id) is None
    assert app.state(app.world.active_id) == "active"


def test_a_sign_in_the_application_does_not_bind_sees_nothing(
        app: ServedDashboard, client: httpx.Client) -> None:
    page = sign_in(client, app.base, "mallory")
    assert page.status_code == 403 and "not a dashboard user" in page.text
    assert "Quality" not in page.text


def test_the_owner_approves_and_suspends_over_http(app: ServedDashboard, client: httpx.Client) -> None:
    csrf = csrf_of(sign_in(client, app.base, "dana").text)
    approved = post_action(client, app, {"csrf": csrf, "action": "approve",
                                         "target": app.world.pending_id, "reason": "fine"})
    assert approved.status_code == 200 and "<strong id='state'>approved</strong>" in approved.text
    suspended = post_action(client, app, {"csrf": csrf, "action": "suspend",
                                          "target": app.world.active_id})
    assert suspended.status_code == 200 and "<strong id='state'>suspended</strong>" in suspended.text
    decision = app.decision(app.world.pending_id)
    assert decision is not None and decision["decision"] == "approve" and decision["reviewer"] == "Dana"
    assert app.state(app.world.active_id) == "suspended"


def test_signing_out_ends_the_session(app: ServedDashboard, client: httpx.Client) -> None:
    csrf = csrf_of(sign_in(client, app.base, "dana").text)
    out = client.post(f"{app.base}/dashboard/signout", data={"csrf": csrf},
                      headers={"Origin": app.base})
    assert out.status_code == 200
    assert client.get(app.url).status_code == 303
    refused = post_action(client, app, {"csrf": csrf, "action": "suspend", "target": app.world.active_id})
    assert refused.status_code == 401 and app.state(app.world.active_id) == "active"


def test_a_read_only_endpoint_shows_the_screen_and_takes_no_action(
        tmp_path: Path, issuer: IssuerHandle, client: httpx.Client) -> None:
    with served_dashboard(tmp_path, issuer, read_only=True) as app:
        page = sign_in(client, app.base, "dana")
        assert page.status_code == 200 and "serves reads only" in page.text
        assert "id='approve-" not in page.text and "id='suspend-" not in page.text
        refused = post_action(client, app, {"csrf": csrf_of(page.text), "action": "suspend",
                                            "target": app.world.active_id})
        assert refused.status_code == 403 and "<p id='code'>read-only</p>" in refused.text
        assert app.state(app.world.active_id) == "active"


def test_without_the_applications_binding_the_screen_reports_unconfigured(
        writable: Path, serve: ServeFactory, issuer: IssuerHandle, client: httpx.Client) -> None:
    served = serve(writable, auth_block(issuer))
    screen = client.get(f"{served.base}/dashboard")
    assert screen.status_code == 503 and "<h1 id='status'>unconfigured</h1>" in screen.text
    assert "FeedbackDashboard" in screen.text
    action = client.post(f"{served.base}/dashboard/action", data={"action": "approve"},
                         headers={"Origin": served.base})
    assert action.status_code == 503


def test_without_an_issuer_the_screen_reports_unconfigured_too(
        writable: Path, serve: ServeFactory, client: httpx.Client) -> None:
    served = serve(writable)
    screen = client.get(f"{served.base}/dashboard")
    assert screen.status_code == 503 and "an issuer to sign in at" in screen.text
