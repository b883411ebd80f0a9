"""The URL gate's review page, on the endpoint's own Starlette app (ADR 0027).

GET  /review/REV-…?nonce=…       the one-time link: signs the human in at the issuer
                                 (authorization code + PKCE), then shows the draft
GET  /review/callback            the issuer's redirect: the code redeemed, the token verified
POST /review/REV-…/decision      approve / reject / withdraw, under the verified token

A link that is not live (unknown, spent, superseded by a re-raise, expired) answers exactly as
a path that does not exist. What is shown and how a decision is applied are core's
(revetly_core.auth.review_decision); this module speaks HTTP and the issuer's OAuth only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import anyio
from revetly_core.auth.review_decision import (
    decide_on_page,
    decision_recorded,
    page_view,
    still_waiting,
)
from revetly_core.auth.review_links import (
    REVIEW_PATH,
    ReviewLink,
    ReviewLinks,
    review_link_url,
    same_secret,
)
from revetly_core.auth.review_signin import (
    CALLBACK_PATH,
    COOKIE_NAME,
    SESSION_TTL,
    SignIns,
    callback_url,
    decision_origin_refusal,
)
from revetly_core.auth.served_surface import Caller, ServedSurface
from revetly_core.config import AuthSection
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from revetly_core import Refusal
from revetly_mcp.auth import HTTP_TIMEOUT, JwtVerifier
from revetly_mcp.issuer_signin import IssuerClient, page_claims, set_session_cookie
from revetly_mcp.review_html import outcome_page, review_page, signin_failed_page

log = logging.getLogger("revetly.review")

CoreCall = Callable[[Callable[[], dict[str, Any]]], Any]
"""Runs one core call off the event loop (the server's own `core`)."""


def not_found() -> Response:
    """What a dead link, a stale state or an unknown review answers: nothing named."""
    return PlainTextResponse("Not Found", status_code=404)


def refused(refusal: Refusal, status: int = 403) -> Response:
    """A refusal rendered as the page's outcome (the review untouched)."""
    return HTMLResponse(outcome_page(refusal.payload()), status_code=status)


class ReviewPage:
    """The review page of one endpoint: its live links, its sign-ins, and its routes."""

    def __init__(self, surface: ServedSurface, verifier: JwtVerifier, auth: AuthSection, *,
                 resource: str, base: str, core: CoreCall) -> None:
        assert auth.issuer is not None
        self.surface = surface
        self.verifier = verifier
        self.auth = auth
        self.resource = resource
        self.base = base.rstrip("/")
        self.core = core
        self.links = ReviewLinks()
        self.signins = SignIns()
        self.issuer = IssuerClient(auth, resource)
        self._secure = urlsplit(self.base).scheme == "https"

    # ------------------------------------------------------------------ links
    def mint(self, review_id: str, session: Any) -> tuple[ReviewLink, str]:
        """A fresh one-time link for a review raised on `session` (any earlier link dies)."""
        link = self.links.mint(review_id, session)
        return link, review_link_url(self.base, link)

    def routes(self) -> list[Route]:
        return [Route(CALLBACK_PATH, self.callback, methods=["GET"]),
                Route(f"{REVIEW_PATH}/{{review_id}}", self.show, methods=["GET"]),
                Route(f"{REVIEW_PATH}/{{review_id}}/decision", self.decide, methods=["POST"])]

    # ------------------------------------------------------------------ the issuer
    async def endpoints(self) -> tuple[str, str]:
        """The issuer's authorization and token endpoints, read from its metadata once."""
        return await self.issuer.endpoints()

    async def redeem(self, code: str, verifier: str) -> str | None:
        """The access token the issuer gives for this code (as a public client), else None."""
        return await self.issuer.redeem(code, verifier, callback_url(self.base))

    # ------------------------------------------------------------------ routes
    async def show(self, request: Request) -> Response:
        """The link: the draft for a person signed in for it, else off to the issuer."""
        review_id = request.path_params["review_id"]
        nonce = request.query_params.get("nonce")
        if self.links.live(review_id, nonce) is None or nonce is None:
            return not_found()
        session = self.signins.session(request.cookies.get(COOKIE_NAME), review_id, nonce)
        claims = await page_claims(self.verifier, session.token if session is not None else None,
                                   list(self.auth.scopes))
        if session is None or claims is None:
            try:
                authorize, _ = await self.endpoints()
            except Refusal as refusal:
                return refused(refusal, 503)
            state, pending = self.signins.start(review_id, nonce)
            return RedirectResponse(self.issuer.authorize_url(
                authorize, state=state, verifier=pending.verifier,
                redirect_uri=callback_url(self.base)), status_code=303)
        view = await self.core(lambda: page_view(self.surface, Caller(claims), review_id))
        if view.get("refusal", {}).get("code") == "outside-grant":
            return HTMLResponse(outcome_page(view), status_code=403)
        if not still_waiting(view):  # answered elsewhere meanwhile: the link is spent
            self.links.spend(review_id, nonce)
            return not_found()
        html = review_page(view, action=f"{self.base}{REVIEW_PATH}/{review_id}/decision",
                           nonce=nonce, csrf=session.csrf,
                           signed_in_as=str(claims.get("name") or claims.get("sub")))
        return HTMLResponse(html, headers={"Cache-Control": "no-store",
                                           "Referrer-Policy": "same-origin"})

    async def callback(self, request: Request) -> Response:
        """The issuer's redirect: redeem the code, verify the token, open the review session."""
        pending = self.signins.finish(request.query_params.get("state"))
        link = self.links.live(pending.review_id, pending.nonce) if pending else None
        if pending is None or link is None:
            return not_found()
        code = request.query_params.get("code")
        token = await self.redeem(code, pending.verifier) if code else None
        claims = await page_claims(self.verifier, token, list(self.auth.scopes))
        if token is None or claims is None:
            return HTMLResponse(signin_failed_page(
                "the issuer did not sign you in with a token for this endpoint"), status_code=403)
        sid = self.signins.open(pending, token, claims)
        response = RedirectResponse(review_link_url(self.base, link), status_code=303)
        set_session_cookie(response, COOKIE_NAME, sid, max_age=SESSION_TTL, path=REVIEW_PATH,
                           secure=self._secure)
        return response

    async def decide(self, request: Request) -> Response:
        """The decision POST: own origin, live link, its signed-in session, CSRF, a token
        still valid; then core applies it and the raising session hears it is complete."""
        review_id = request.path_params["review_id"]
        wrong_origin = decision_origin_refusal(request.headers.get("origin"), self.base)
        if wrong_origin is not None:
            return refused(wrong_origin)
        form = await request.form()
        nonce, csrf = form.get("nonce"), form.get("csrf")
        nonce = nonce if isinstance(nonce, str) else None
        if nonce is None or self.links.live(review_id, nonce) is None:
            return not_found()
        cookie = request.cookies.get(COOKIE_NAME)
        session = self.signins.session(cookie, review_id, nonce)
        if session is None or not same_secret(csrf if isinstance(csrf, str) else None,
                                              session.csrf):
            return refused(Refusal("refused", "this decision does not come from the review page "
                                   "you signed in on", "open the review link again and answer "
                                   "on its page", {"wrote": False}))
        claims = await self.verifier.claims_of(session.token)
        if claims is None:
            return refused(Refusal("refused", "your sign-in is no longer valid at the issuer",
                                   "open the review link again to sign in", {"wrote": False}))
        decision, reason = form.get("decision"), form.get("reason")
        payload: dict[str, Any] = await self.core(lambda: decide_on_page(
            self.surface, Caller(claims), review_id, str(decision),
            reason if isinstance(reason, str) else None))
        if not decision_recorded(payload):
            return HTMLResponse(outcome_page(payload), status_code=403)
        link = self.links.spend(review_id, nonce)
        self.signins.close(cookie)
        if link is not None:
            await self.complete(link)
        return HTMLResponse(outcome_page(payload))

    async def complete(self, link: ReviewLink) -> None:
        """notifications/elicitation/complete to the session that raised the link (a session
        gone meanwhile is not the page's failure)."""
        if link.session is None:
            return
        try:
            with anyio.fail_after(HTTP_TIMEOUT):
                await link.session.send_elicit_complete(link.elicitation_id)
        except Exception as exc:
            log.info("elicitation/complete for %s not delivered: %s", link.review_id, exc)
