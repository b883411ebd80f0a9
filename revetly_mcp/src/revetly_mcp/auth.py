"""The jwt verifier: a bearer token checked on every request against the issuer's keys.

Signature and registered claims are joserfc's (authlib's JOSE); the rules of what this engine
admits (audience per RFC 8707, who the caller is) are revetly_core.auth's. The issuer's keys are
fetched from its JWKS and cached; a token signed under a kid the cache does not hold refetches
the set once, so a rotation at the issuer is picked up without a restart.

A token that passed is remembered (VerifiedTokens) until its exp, for as long as the key set it
was checked under is the one in force, so the signature and claims are not recomputed on every
request of a session; introspection, where declared, still asks the issuer on every request, so
a revoked token stops working mid-session as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jws import extract_compact
from mcp.server.auth.provider import AccessToken, TokenVerifier
from revetly_core.auth import audience_refusal
from revetly_core.config import AuthSection

from revetly_core import Refusal

log = logging.getLogger("revetly.auth")

JWKS_TTL = 300.0
"""Seconds a fetched key set is trusted before the next token refetches it."""
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"]
HTTP_TIMEOUT = 5.0
LEEWAY = 30
"""Seconds of clock skew allowed on exp / nbf."""
VERIFIED_MAX = 4096
"""Tokens remembered as verified at most (the least recently presented is forgotten first)."""


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be: RFC 8414's well-known (path-inserted), then OIDC's."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    return [f"{origin}/.well-known/oauth-authorization-server{path}",
            f"{issuer.rstrip('/')}/.well-known/openid-configuration"]


def discover_jwks_uri(auth: AuthSection, client: httpx.Client) -> str:
    """The JWKS address: declared, else read from the issuer's metadata; refused naming the
    setting when neither answers."""
    if auth.jwks_uri:
        return auth.jwks_uri
    assert auth.issuer is not None
    for url in metadata_urls(auth.issuer):
        try:
            response = client.get(url)
        except httpx.HTTPError:
            continue
        if response.status_code == 200:
            uri = response.json().get("jwks_uri")
            if isinstance(uri, str):
                return uri
    raise Refusal("refused", f"the issuer {auth.issuer} publishes no metadata naming its "
                  "jwks_uri (RFC 8414 or OpenID discovery)",
                  "declare [auth] jwks_uri, or check [auth] issuer", {"setting": "auth.jwks_uri"})


@dataclass
class JwksCache:
    """The issuer's key set, fetched on start, refreshed after JWKS_TTL, and refetched once for
    each kid it does not hold (a kid still unknown after that is refused until the TTL)."""

    uri: str
    keys: KeySet = field(default_factory=lambda: KeySet([]))
    fetched_at: float = 0.0
    _tried: set[str] = field(default_factory=set)
    _lock: anyio.Lock = field(default_factory=anyio.Lock)
    fetches: int = 0

    def load(self, document: dict[str, Any]) -> None:
        self.keys = KeySet.import_key_set(document)  # type: ignore[arg-type]
        self.fetched_at = time.monotonic()
        self._tried.clear()
        self.fetches += 1

    def fetch_sync(self, client: httpx.Client) -> None:
        """The first fetch, before the endpoint starts (a set that does not load refuses)."""
        try:
            response = client.get(self.uri)
            response.raise_for_status()
            self.load(response.json())
        except (httpx.HTTPError, ValueError, JoseError) as exc:
            raise Refusal("refused", f"the issuer's keys at {self.uri} did not load: {exc}",
                          "check [auth] jwks_uri / issuer and that the issuer answers",
                          {"setting": "auth.jwks_uri"}) from None

    def current(self) -> bool:
        """Whether the key set in hand is still within JWKS_TTL (no refetch due)."""
        return bool(self.fetches) and time.monotonic() - self.fetched_at <= JWKS_TTL

    def holds(self, kid: str | None) -> bool:
        return any(k.kid == kid for k in self.keys.keys) if kid else bool(self.keys.keys)

    async def for_kid(self, kid: str | None) -> KeySet:
        """The key set to verify a token under kid, refetched when stale or missing the kid."""
        async with self._lock:
            stale = time.monotonic() - self.fetched_at > JWKS_TTL
            unknown = not self.holds(kid) and (kid or "") not in self._tried
            if stale or unknown:
                if unknown:
                    self._tried.add(kid or "")
                await self._refetch()
            return self.keys

    async def _refetch(self) -> None:
        tried = set(self._tried)
        try:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as client:
                response = await client.get(self.uri)
                response.raise_for_status()
                self.load(response.json())
        except (httpx.HTTPError, ValueError, JoseError) as exc:
            log.warning("JWKS refetch from %s failed: %s", self.uri, exc)
            return
        self._tried = {k for k in tried if not self.holds(k)}


@dataclass
class Introspection:
    """RFC 7662: asks the issuer whether a token is still active (a revoked one is not)."""

    url: str
    client_id: str | None
    secret: str | None
    _client: httpx.AsyncClient | None = field(default=None, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)

    def client(self) -> httpx.AsyncClient:
        """One keep-alive client per event loop (the endpoint's, or a one-shot doctor run's),
        so a request's introspection reuses the connection rather than opening one."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            auth = (self.client_id, self.secret or "") if self.client_id else None
            self._client = httpx.AsyncClient(timeout=HTTP_TIMEOUT, auth=auth)
            self._loop = loop
        return self._client

    async def active(self, token: str) -> bool:
        """Whether the issuer answers active: true for this token (a kept connection the issuer
        closed meanwhile is retried once on a new one before the answer counts as no)."""
        try:
            try:
                response = await self.client().post(self.url, data={"token": token})
            except httpx.TransportError:
                self._client = None
                response = await self.client().post(self.url, data={"token": token})
        except httpx.HTTPError as exc:
            log.warning("introspection at %s failed: %s", self.url, exc)
            return False
        if response.status_code != 200:
            return False
        try:
            return response.json().get("active") is True
        except ValueError:
            return False


@dataclass(frozen=True)
class Verified:
    """A token's claims as they passed, the key-set fetch they passed under, and until when."""

    claims: dict[str, Any]
    fetch: int
    until: float


@dataclass
class VerifiedTokens:
    """Tokens that passed signature, iss, sub, exp and audience, remembered until exp (with
    the leeway the check allows) and only under the key set they were checked with: a refetched
    set checks every token again. Bounded: the least recently presented are forgotten first."""

    limit: int = VERIFIED_MAX
    _seen: OrderedDict[str, Verified] = field(default_factory=OrderedDict)

    def claims(self, token: str, fetch: int, now: float) -> dict[str, Any] | None:
        """The remembered claims of a token still admitted at `now` under fetch `fetch`."""
        found = self._seen.get(token)
        if found is None:
            return None
        if found.fetch != fetch or now >= found.until:
            del self._seen[token]
            return None
        self._seen.move_to_end(token)
        return found.claims

    def remember(self, token: str, claims: dict[str, Any], fetch: int) -> None:
        """Keep a token that passed, until its exp (a token without a numeric exp is not kept)."""
        exp = claims.get("exp")
        if not isinstance(exp, int | float):
            return
        self._seen[token] = Verified(claims, fetch, float(exp) + LEEWAY)
        self._seen.move_to_end(token)
        while len(self._seen) > self.limit:
            self._seen.popitem(last=False)


class JwtVerifier(TokenVerifier):
    """The SDK's TokenVerifier for [auth] verifier = "jwt"."""

    def __init__(self, auth: AuthSection, resource: str, jwks: JwksCache,
                 introspection: Introspection | None = None) -> None:
        assert auth.issuer is not None
        self.auth = auth
        self.issuer = auth.issuer
        self.resource = resource
        self.jwks = jwks
        self.introspection = introspection
        self.verified = VerifiedTokens()

    async def verify_token(self, token: str) -> AccessToken | None:
        claims = await self.claims_of(token)
        if claims is None:
            return None
        scope = claims.get("scope")
        scopes = scope.split() if isinstance(scope, str) else list(claims.get("scp") or [])
        client_id = claims.get("client_id") or claims.get("azp") or claims.get("sub")
        exp = claims.get("exp")
        return AccessToken(token=token, client_id=str(client_id), scopes=scopes,
                           expires_at=int(exp) if isinstance(exp, int | float) else None,
                           resource=self.resource, subject=str(claims["sub"]), claims=claims)

    async def claims_of(self, token: str) -> dict[str, Any] | None:
        """The token's claims once every check passed, else None (the reason is logged)."""
        claims, reason = await self.check(token)
        if claims is None:
            log.info("token refused: %s", reason)
        return claims

    async def check(self, token: str) -> tuple[dict[str, Any] | None, str | None]:
        """(claims, None) for a token every check admits, else (None, why it was refused).
        A token verified before under the key set in force skips to introspection."""
        claims: dict[str, Any] | None = None
        if self.jwks.current():
            claims = self.verified.claims(token, self.jwks.fetches, time.time())
        if claims is None:
            claims, reason = await self.verify(token)
            if claims is None:
                return None, reason
        if self.introspection is not None and not await self.introspection.active(token):
            return None, "the issuer says the token is no longer active (revoked or expired)"
        return claims, None

    async def verify(self, token: str) -> tuple[dict[str, Any] | None, str | None]:
        """Signature, iss, sub, exp and audience checked under the issuer's keys; a token that
        passes is remembered until its exp."""
        try:
            header = extract_compact(token.encode("ascii")).headers()
        except (JoseError, ValueError, UnicodeEncodeError) as exc:
            return None, f"not a compact JWS ({exc})"
        keys = await self.jwks.for_kid(header.get("kid"))
        try:
            decoded = jwt.decode(token, keys, algorithms=ALGORITHMS)
            registry = jwt.JWTClaimsRegistry(leeway=LEEWAY, iss={"essential": True,
                                                                 "value": self.issuer},
                                             sub={"essential": True}, exp={"essential": True})
            registry.validate(decoded.claims)
        except (JoseError, ValueError) as exc:
            return None, str(exc)
        claims = dict(decoded.claims)
        refused = audience_refusal(claims, self.resource)
        if refused is not None:
            return None, refused
        self.verified.remember(token, claims, self.jwks.fetches)
        return claims, None


def build_verifier(auth: AuthSection, resource: str, env: dict[str, str]) -> JwtVerifier:
    """A verifier that resolves: its issuer's keys loaded now, or a refusal naming the setting."""
    if auth.verifier != "jwt" or not auth.issuer:
        raise Refusal("refused", "[auth] declares no verifier with an issuer",
                      "declare [auth] verifier = \"jwt\" and issuer", {"setting": "auth.verifier"})
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        jwks = JwksCache(discover_jwks_uri(auth, client))
        jwks.fetch_sync(client)
    introspection = None
    if auth.introspection_url:
        introspection = Introspection(auth.introspection_url, auth.introspection_client_id,
                                      env.get(auth.introspection_secret_env))
    return JwtVerifier(auth, resource, jwks, introspection)
