"""The in-memory state of a browser sign-in at the issuer, shared by the review page and the
dashboard: started sign-ins keyed by their OAuth state and signed-in sessions keyed by a random
cookie value, each forgotten after its time to live.

What a started sign-in or a session carries is the caller's type; this store only keys, ages,
bounds and forgets them, under one lock (the routes run on several threads).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

P = TypeVar("P")
"""What a started sign-in carries until its callback comes back."""
S = TypeVar("S")
"""What a signed-in session carries."""


def is_stale(started_at: float, now: float, ttl: float) -> bool:
    """An entry older than its time to live is as good as absent."""
    return now - started_at > ttl


class SignInStore(Generic[P, S]):
    """Started sign-ins (by OAuth state) and sessions (by cookie value), each with its TTL;
    `max_pending` bounds the started ones, forgetting the oldest first."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, signin_ttl: float,
                 session_ttl: float, max_pending: int | None = None) -> None:
        self.clock = clock
        self.signin_ttl = signin_ttl
        self.session_ttl = session_ttl
        self.max_pending = max_pending
        self._pending: dict[str, tuple[P, float]] = {}
        self._sessions: dict[str, tuple[S, float]] = {}
        self._lock = threading.Lock()

    def hold(self, pending: P) -> str:
        """Keep a started sign-in; returns the fresh OAuth state naming it."""
        state = secrets.token_urlsafe(24)
        with self._lock:
            self._sweep()
            while self.max_pending is not None and len(self._pending) >= self.max_pending:
                del self._pending[next(iter(self._pending))]
            self._pending[state] = (pending, self.clock())
        return state

    def finish(self, state: str | None) -> P | None:
        """The started sign-in a callback's state names, taken once (unknown or stale: None)."""
        if not state:
            return None
        with self._lock:
            found = self._pending.pop(state, None)
        if found is None or is_stale(found[1], self.clock(), self.signin_ttl):
            return None
        return found[0]

    def keep(self, session: S) -> str:
        """Keep a signed-in session; returns the fresh cookie value naming it."""
        sid = secrets.token_urlsafe(32)
        with self._lock:
            self._sessions[sid] = (session, self.clock())
        return sid

    def live(self, sid: str | None) -> S | None:
        """The session this cookie value names while it lives, else None."""
        if not sid:
            return None
        with self._lock:
            found = self._sessions.get(sid)
        if found is None or is_stale(found[1], self.clock(), self.session_ttl):
            return None
        return found[0]

    def close(self, sid: str | None) -> None:
        """Forget a session (signed out, or its purpose spent)."""
        if sid:
            with self._lock:
                self._sessions.pop(sid, None)

    def _sweep(self) -> None:
        now = self.clock()
        for key in [k for k, (_, at) in self._pending.items() if is_stale(at, now, self.signin_ttl)]:
            del self._pending[key]
        for key in [k for k, (_, at) in self._sessions.items()
                    if is_stale(at, now, self.session_ttl)]:
            del self._sessions[key]
