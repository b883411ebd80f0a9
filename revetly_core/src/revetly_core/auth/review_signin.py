"""Signing a person in on the review page: authorization code + PKCE as a public client.

The page sends the human to the issuer's authorization endpoint with an S256 challenge (RFC
7636) and the endpoint's resource (RFC 8707); the code comes back to `<base>/review/callback`
and is exchanged for a token the endpoint's own verifier then checks like any bearer. The
signed-in state is held here, server-side, keyed by a random cookie value, and bound to the one
review link it was started from (ADR 0027).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from revetly_core.auth.review_links import REVIEW_PATH, same_secret
from revetly_core.auth.signin_store import SignInStore
from revetly_core.refusal import Refusal

CALLBACK_PATH = f"{REVIEW_PATH}/callback"
COOKIE_NAME = "revetly_review"
SIGNIN_TTL = 600.0
"""Seconds a started sign-in may take to come back from the issuer."""
SESSION_TTL = 3600.0
"""Seconds a signed-in review session lasts."""


def pkce_challenge(verifier: str) -> str:
    """RFC 7636 S256: base64url(sha256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def new_pkce_verifier() -> str:
    """A fresh code verifier: 43+ unreserved characters of randomness."""
    return secrets.token_urlsafe(48)


def callback_url(base: str) -> str:
    """The redirect URI the page registers with the issuer."""
    return f"{base.rstrip('/')}{CALLBACK_PATH}"


def authorize_url(endpoint: str, *, client_id: str, redirect_uri: str, state: str,
                  verifier: str, resource: str, scopes: list[str]) -> str:
    """The issuer's authorization request for one sign-in (code flow, S256, the resource)."""
    query: dict[str, str] = {
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
        "state": state, "code_challenge": pkce_challenge(verifier),
        "code_challenge_method": "S256", "resource": resource,
    }
    if scopes:
        query["scope"] = " ".join(scopes)
    joiner = "&" if urlsplit(endpoint).query else "?"
    return f"{endpoint}{joiner}{urlencode(query)}"


def token_request(code: str, *, client_id: str, redirect_uri: str, verifier: str,
                  resource: str) -> dict[str, str]:
    """The form a public client posts to the token endpoint to redeem the code."""
    return {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "client_id": client_id, "code_verifier": verifier, "resource": resource}


def issuer_endpoints(metadata: Mapping[str, Any]) -> tuple[str, str]:
    """(authorization_endpoint, token_endpoint) from the issuer's RFC 8414 / OIDC metadata;
    refused naming [auth] issuer when either is missing."""
    auth, token = metadata.get("authorization_endpoint"), metadata.get("token_endpoint")
    if not isinstance(auth, str) or not isinstance(token, str):
        raise Refusal("refused", "the issuer's metadata names no authorization_endpoint and "
                      "token_endpoint, so the review page cannot sign anyone in",
                      "point [auth] issuer at an authorization server that publishes both",
                      {"setting": "auth.issuer"})
    return auth, token


def token_scopes(claims: Mapping[str, Any]) -> set[str]:
    """The scopes a token carries: its space-separated `scope`, else its `scp` list."""
    scope = claims.get("scope")
    if isinstance(scope, str):
        return set(scope.split())
    scp = claims.get("scp")
    return {s for s in scp if isinstance(s, str)} if isinstance(scp, list) else set()


def lacks_scopes(claims: Mapping[str, Any], required: list[str]) -> bool:
    """A sign-in whose token misses a scope [auth] scopes requires signs nobody in on the page,
    as it would be refused on /mcp."""
    return not set(required) <= token_scopes(claims)


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL, lower-cased."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def is_own_origin(origin: str | None, base: str) -> bool:
    """A request's Origin header names the page's own origin (a missing one does not)."""
    return origin is not None and origin.rstrip("/").lower() == origin_of(base)


def decision_origin_refusal(origin: str | None, base: str) -> Refusal | None:
    """A decision POST must carry the page's own Origin: a missing or other one is refused
    (a browser always sends Origin on a form POST, so nothing legitimate lacks it)."""
    if is_own_origin(origin, base):
        return None
    return Refusal("refused", f"a review decision is accepted only from the review page's own "
                   f"origin ({origin_of(base)}), not {origin or 'a request without Origin'}",
                   "answer the review on the page the link opened", {"wrote": False})


@dataclass
class PendingSignIn:
    """A sign-in sent to the issuer: which link it came from and its PKCE verifier."""

    review_id: str
    nonce: str
    verifier: str


@dataclass
class ReviewSession:
    """A person signed in for one review link: their token, its verified claims, and the
    CSRF value the decision form must echo."""

    review_id: str
    nonce: str
    token: str
    claims: dict[str, Any]
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))


class SignIns(SignInStore[PendingSignIn, ReviewSession]):
    """Started sign-ins (by OAuth state) and signed-in review sessions (by cookie value)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock, signin_ttl=SIGNIN_TTL, session_ttl=SESSION_TTL)

    def start(self, review_id: str, nonce: str) -> tuple[str, PendingSignIn]:
        """A new sign-in for a live link: (OAuth state, its record)."""
        pending = PendingSignIn(review_id, nonce, new_pkce_verifier())
        return self.hold(pending), pending

    def open(self, pending: PendingSignIn, token: str, claims: dict[str, Any]) -> str:
        """A signed-in session for the link the sign-in came from; returns the cookie value."""
        return self.keep(ReviewSession(pending.review_id, pending.nonce, token, claims))

    def session(self, sid: str | None, review_id: str, nonce: str) -> ReviewSession | None:
        """The signed-in session of this cookie, if it was opened for this very link."""
        found = self.live(sid)
        if found is None or found.review_id != review_id or not same_secret(nonce, found.nonce):
            return None
        return found
