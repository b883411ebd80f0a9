"""Signing a person in on the dashboard: the review page's sign-in (authorization code + PKCE as
a public client at the endpoint's issuer, ADR 0027), held server-side behind a random cookie,
with the CSRF value every state-changing form echoes and the page's own-Origin rule (ADR 0036).

Only the sign-in lives here. Who the signed-in person is *in the governed layer* (scope, the
application session the screen reads with, whether they are the owner) is the application's
trusted binding's answer (revetly_core.governed.dashboard), asked again on every request.
This module stays free of the governed layer, so an endpoint serving no dashboard loads none
of it to say so.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from revetly_core.auth.review_links import same_secret
from revetly_core.auth.review_signin import is_own_origin, new_pkce_verifier, origin_of
from revetly_core.auth.signin_store import SignInStore
from revetly_core.refusal import Refusal

DASHBOARD_PATH = "/dashboard"
CALLBACK_PATH = f"{DASHBOARD_PATH}/callback"
ACTION_PATH = f"{DASHBOARD_PATH}/action"
SIGNOUT_PATH = f"{DASHBOARD_PATH}/signout"
COOKIE_NAME = "revetly_dashboard"
SIGNIN_TTL = 600.0
"""Seconds a started sign-in may take to come back from the issuer."""
SESSION_TTL = 3600.0
"""Seconds a signed-in dashboard session lasts."""
MAX_PENDING = 1024
"""Started sign-ins held at most; the oldest is forgotten first (a flood cannot grow memory)."""


def unconfigured_view(missing: list[str]) -> dict[str, Any]:
    """What the screen reports without the application's binding or an issuer to sign in at."""
    return {"kind": "feedback_dashboard", "version": 1, "status": "unconfigured", "missing": missing,
            "fix": "the application supplies FeedbackDashboard(...) to the HTTP app, and [auth] "
                   "names the issuer people sign in at (docs/governed.md, the dashboard)"}


def dashboard_callback_url(base: str) -> str:
    """The redirect URI the dashboard's sign-in registers with the issuer."""
    return f"{base.rstrip('/')}{CALLBACK_PATH}"


def dashboard_origin_refusal(origin: str | None, base: str) -> Refusal | None:
    """A state-changing dashboard request carries the dashboard's own Origin; a missing or other
    one is refused ([served] allowed_origins admits MCP clients, not dashboard forms)."""
    if is_own_origin(origin, base):
        return None
    return Refusal("refused", f"a dashboard action is accepted only from the dashboard's own origin "
                   f"({origin_of(base)}), not {origin or 'a request without Origin'}",
                   "act on the dashboard page itself", {"wrote": False})


def csrf_refusal(given: object, held: str) -> Refusal | None:
    """A state-changing form echoes its session's CSRF value exactly; anything else is refused."""
    if same_secret(given if isinstance(given, str) else None, held):
        return None
    return Refusal("refused", "this request does not come from the dashboard page you signed in on",
                   "open the dashboard again and act on its page", {"wrote": False})


@dataclass
class DashboardSession:
    """A person signed in at the issuer: their token, its verified claims and the CSRF value."""

    token: str
    claims: dict[str, Any]
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))


class DashboardSignIns(SignInStore[str, DashboardSession]):
    """Started sign-ins (by OAuth state: their PKCE verifier) and signed-in sessions (by cookie)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock, signin_ttl=SIGNIN_TTL, session_ttl=SESSION_TTL,
                         max_pending=MAX_PENDING)

    def start(self) -> tuple[str, str]:
        """A new sign-in: (OAuth state, PKCE verifier)."""
        verifier = new_pkce_verifier()
        return self.hold(verifier), verifier

    def open(self, token: str, claims: dict[str, Any]) -> str:
        """A signed-in session; returns the cookie value naming it."""
        return self.keep(DashboardSession(token, claims))

    def session(self, sid: str | None) -> DashboardSession | None:
        """The live session this cookie names, else None."""
        return self.live(sid)
