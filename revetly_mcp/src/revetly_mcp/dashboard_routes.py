"""The feedback dashboard's page, on the endpoint's own Starlette app (ADR 0036).

GET  /dashboard            the screen for a signed-in person, else off to the issuer
                           (authorization code + PKCE); "unconfigured" without the
                           application's FeedbackDashboard or an issuer to sign in at
GET  /dashboard/callback   the issuer's redirect: the code redeemed, the token verified
POST /dashboard/action     one owner action: own Origin, signed-in session (else 401), CSRF,
                           token still valid at the issuer, identity asked again, then core
POST /dashboard/signout    the session forgotten

Every payload and every rule is core's (revetly_core.governed.dashboard*); this module speaks
HTTP, HTML and the issuer's OAuth only. Core calls run off the event loop, so the dashboard's
per-request memory factory opens each canonical memory in the thread that uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from revetly_core.auth.dashboard_signin import (
    ACTION_PATH,
    CALLBACK_PATH,
    COOKIE_NAME,
    DASHBOARD_PATH,
    SESSION_TTL,
    SIGNOUT_PATH,
    DashboardSession,
    DashboardSignIns,
    csrf_refusal,
    dashboard_callback_url,
    dashboard_origin_refusal,
    unconfigured_view,
)
from revetly_core.config import AuthSection
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from revetly_core import Refusal
from revetly_mcp.auth import JwtVerifier
from revetly_mcp.dashboard_html import (
    action_outcome_page,
    dashboard_page,
    message_page,
    unconfigured_page,
)
from revetly_mcp.issuer_signin import IssuerClient, page_claims, set_session_cookie

if TYPE_CHECKING:
    from revetly_core.governed.dashboard import DashboardIdentity, FeedbackDashboard

CoreCall = Callable[[Callable[[], Any]], Any]
"""Runs one core call off the event loop (the server's own `core`)."""
PAGE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "same-origin",
                "X-Frame-Options": "DENY", "Content-Security-Policy":
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                "frame-ancestors 'none'"}
STATUS_OF_REFUSAL = {"not-owner": 403, "read-only": 403, "bad-argument": 400,
                     "memory-not-bound": 503}


def html(body: str, status: int = 200) -> Response:
    return HTMLResponse(body, status_code=status, headers=PAGE_HEADERS)


def refusal_status(payload: dict[str, Any]) -> int:
    """The HTTP status an action's answer is served with: 200 done, else by its refusal code."""
    refusal = payload.get("refusal")
    if not isinstance(refusal, dict):
        return 200
    return STATUS_OF_REFUSAL.get(str(refusal.get("code")), 409)


class DashboardPage:
    """The dashboard of one endpoint: its sign-ins and its routes."""

    def __init__(self, dashboard: FeedbackDashboard | None, verifier: JwtVerifier | None,
                 auth: AuthSection, *, resource: str, base: str, core: CoreCall,
                 read_only: bool = False) -> None:
        self.dashboard = dashboard
        self.read_only = read_only
        self.verifier = verifier
        self.auth = auth
        self.base = base.rstrip("/")
        self.core = core
        self.signins = DashboardSignIns()
        self.issuer = IssuerClient(auth, resource) if auth.issuer and verifier else None
        self._secure = urlsplit(self.base).scheme == "https"

    def routes(self) -> list[Route]:
        return [Route(DASHBOARD_PATH, self.show, methods=["GET"]),
                Route(CALLBACK_PATH, self.callback, methods=["GET"]),
                Route(ACTION_PATH, self.act, methods=["POST"]),
                Route(SIGNOUT_PATH, self.signout, methods=["POST"])]

    # ------------------------------------------------------------------ state
    def missing(self) -> list[str]:
        """What the screen lacks to be configured (empty: it is)."""
        missing = []
        if self.dashboard is None:
            missing.append("the application's FeedbackDashboard binding")
        if self.issuer is None:
            missing.append("an issuer to sign in at ([auth] verifier and issuer)")
        return missing

    def unconfigured(self) -> Response:
        return html(unconfigured_page(unconfigured_view(self.missing())), 503)

    async def signed_in(self, request: Request) -> tuple[DashboardSession, DashboardIdentity] | None:
        """The request's session, its token still valid at the issuer, and the identity the
        application's binding gives it now; None when any of them is missing."""
        assert self.dashboard is not None and self.verifier is not None
        session = self.signins.session(request.cookies.get(COOKIE_NAME))
        if session is None:
            return None
        claims = await page_claims(self.verifier, session.token, list(self.auth.scopes))
        if claims is None:
            return None
        dashboard = self.dashboard
        identity: DashboardIdentity | None = await self.core(lambda: dashboard.identify(claims))
        return None if identity is None else (session, identity)

    # ------------------------------------------------------------------ routes
    async def show(self, request: Request) -> Response:
        """The screen, or the sign-in at the issuer."""
        if self.missing():
            return self.unconfigured()
        assert self.dashboard is not None and self.issuer is not None
        session = self.signins.session(request.cookies.get(COOKIE_NAME))
        found = await self.signed_in(request) if session is not None else None
        if found is None:
            if session is not None and await self._token_valid(session):
                return html(message_page("not a dashboard user", "the application binds no "
                                         "dashboard identity to your sign-in"), 403)
            try:
                authorize, _ = await self.issuer.endpoints()
            except Refusal as refusal:
                return html(message_page("sign-in unavailable", refusal.detail), 503)
            state, verifier = self.signins.start()
            return RedirectResponse(self.issuer.authorize_url(
                authorize, state=state, verifier=verifier,
                redirect_uri=dashboard_callback_url(self.base)), status_code=303)
        session, identity = found
        dashboard = self.dashboard
        view = await self.core(lambda: dashboard.view(identity, read_only=self.read_only))
        return html(dashboard_page(view, csrf=session.csrf,
                                   action_url=f"{self.base}{ACTION_PATH}",
                                   signout_url=f"{self.base}{SIGNOUT_PATH}"))

    async def _token_valid(self, session: DashboardSession) -> bool:
        assert self.verifier is not None
        return await page_claims(self.verifier, session.token, list(self.auth.scopes)) is not None

    async def callback(self, request: Request) -> Response:
        """The issuer's redirect: redeem the code, verify the token, open the session."""
        if self.missing():
            return self.unconfigured()
        assert self.issuer is not None and self.verifier is not None
        verifier = self.signins.finish(request.query_params.get("state"))
        code = request.query_params.get("code")
        token = (await self.issuer.redeem(code, verifier, dashboard_callback_url(self.base))
                 if verifier and code else None)
        claims = await page_claims(self.verifier, token, list(self.auth.scopes))
        if token is None or claims is None:
            return html(message_page("sign-in failed", "the issuer did not sign you in with a "
                                     "token for this endpoint"), 403)
        sid = self.signins.open(token, claims)
        response = RedirectResponse(f"{self.base}{DASHBOARD_PATH}", status_code=303)
        set_session_cookie(response, COOKIE_NAME, sid, max_age=SESSION_TTL, path=DASHBOARD_PATH,
                           secure=self._secure)
        return response

    async def act(self, request: Request) -> Response:
        """One owner action, after the Origin, session, CSRF, token and identity checks."""
        back = f"{self.base}{DASHBOARD_PATH}"
        if self.missing():
            return self.unconfigured()
        assert self.dashboard is not None
        wrong_origin = dashboard_origin_refusal(request.headers.get("origin"), self.base)
        if wrong_origin is not None:
            return html(action_outcome_page(wrong_origin.payload(), back), 403)
        form = dict(await request.form())
        session = self.signins.session(request.cookies.get(COOKIE_NAME))
        if session is None:
            return html(action_outcome_page(Refusal(
                "refused", "you are not signed in to the dashboard", "open the dashboard to sign "
                "in", {"wrote": False}).payload(), back), 401)
        forged = csrf_refusal(form.get("csrf"), session.csrf)
        if forged is not None:
            return html(action_outcome_page(forged.payload(), back), 403)
        found = await self.signed_in(request)
        if found is None:
            return html(action_outcome_page(Refusal(
                "refused", "your sign-in is no longer valid, or no longer bound to a dashboard "
                "identity", "open the dashboard again to sign in", {"wrote": False}).payload(),
                back), 401)
        _, identity = found
        dashboard = self.dashboard
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        payload: dict[str, Any] = await self.core(
            lambda: dashboard.act(identity, fields, read_only=self.read_only))
        return html(action_outcome_page(payload, back), refusal_status(payload))

    async def signout(self, request: Request) -> Response:
        """Forget the session (own Origin and CSRF, like every state-changing request)."""
        back = f"{self.base}{DASHBOARD_PATH}"
        wrong_origin = dashboard_origin_refusal(request.headers.get("origin"), self.base)
        if wrong_origin is not None:
            return html(action_outcome_page(wrong_origin.payload(), back), 403)
        form = await request.form()
        cookie = request.cookies.get(COOKIE_NAME)
        session = self.signins.session(cookie)
        forged = csrf_refusal(form.get("csrf"), session.csrf) if session is not None else None
        if forged is not None:
            return html(action_outcome_page(forged.payload(), back), 403)
        self.signins.close(cookie)
        response = html(message_page("signed out", "your dashboard session is closed"))
        response.delete_cookie(COOKIE_NAME, path=DASHBOARD_PATH)
        return response
