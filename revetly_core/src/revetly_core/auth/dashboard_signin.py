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
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from revetly_core.auth.review_links import same_secret
from revetly_core.auth.review_signin import new_pkce_verifier, origin_of
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
    if origin is not None and origin.rstrip("/").lower() == origin_of(base):
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
    started_at: float
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))


class DashboardSignIns:
    """Started sign-ins (by OAuth state: their PKCE verifier) and signed-in sessions (by cookie)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._pending: dict[str, tuple[str, float]] = {}
        self._sessions: dict[str, DashboardSession] = {}
        self._lock = threading.Lock()

    def start(self) -> tuple[str, str]:
        """A new sign-in: (OAuth state, PKCE verifier)."""
        state, verifier = secrets.token_urlsafe(24), new_pkce_verifier()
        with self._lock:
            self._sweep()
            while len(self._pending) >= MAX_PENDING:
                del self._pending[next(iter(self._pending))]
            self._pending[state] = (verifier, self.clock())
        return state, verifier

    def finish(self, state: str | None) -> str | None:
        """The PKCE verifier of the sign-in a callback's state names, taken once (else None)."""
        if not state:
            return None
        with self._lock:
            found = self._pending.pop(state, None)
        if found is None or self.clock() - found[1] > SIGNIN_TTL:
            return None
        return found[0]

    def open(self, token: str, claims: dict[str, Any]) -> str:
        """A signed-in session; returns the cookie value naming it."""
        sid = secrets.token_urlsafe(32)
        with self._lock:
            self._sessions[sid] = DashboardSession(token, claims, self.clock())
        return sid

    def session(self, sid: str | None) -> DashboardSession | None:
        """The live session this cookie names, else None."""
        if not sid:
            return None
        with self._lock:
            found = self._sessions.get(sid)
        if found is None or self.clock() - found.started_at > SESSION_TTL:
            return None
        return found

    def close(self, sid: str | None) -> None:
        """Sign out: forget the session."""
        if sid:
            with self._lock:
                self._sessions.pop(sid, None)

    def _sweep(self) -> None:
        now = self.clock()
        for key in [k for k, (_, at) in self._pending.items() if now - at > SIGNIN_TTL]:
            del self._pending[key]
        for key in [k for k, s in self._sessions.items() if now - s.started_at > SESSION_TTL]:
            del self._sessions[key]
