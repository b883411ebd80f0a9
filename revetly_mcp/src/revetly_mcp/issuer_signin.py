"""The issuer's side of a page sign-in (authorization code + PKCE as a public client): its
endpoints read from its metadata once, and a code redeemed for a token. The review page and the
dashboard both sign people in this way; what a token then means is core's."""

from __future__ import annotations

import logging
from typing import Any

import httpx
from revetly_core.auth.review_signin import (
    authorize_url,
    issuer_endpoints,
    lacks_scopes,
    token_request,
)
from revetly_core.config import AuthSection
from starlette.responses import Response

from revetly_core import Refusal
from revetly_mcp.auth import HTTP_TIMEOUT, JwtVerifier, metadata_urls

log = logging.getLogger("revetly.signin")


async def page_claims(verifier: JwtVerifier, token: str | None,
                      scopes: list[str]) -> dict[str, Any] | None:
    """The claims of a page's token the endpoint's verifier admits and that carries every
    required scope, else None (no token, a refused one, or one missing a scope)."""
    claims = await verifier.claims_of(token) if token else None
    return None if claims is None or lacks_scopes(claims, scopes) else claims


def set_session_cookie(response: Response, name: str, sid: str, *, max_age: float, path: str,
                       secure: bool) -> None:
    """A page's sign-in cookie: HTTP-only, same-site lax, scoped to the page's path."""
    response.set_cookie(name, sid, max_age=int(max_age), path=path, httponly=True,
                        samesite="lax", secure=secure)


class IssuerClient:
    """One endpoint's issuer, as a page's public OAuth client."""

    def __init__(self, auth: AuthSection, resource: str) -> None:
        assert auth.issuer is not None
        self.auth = auth
        self.resource = resource
        self._endpoints: tuple[str, str] | None = None

    async def endpoints(self) -> tuple[str, str]:
        """The issuer's authorization and token endpoints, read from its metadata once (a
        refusal naming [auth] issuer when no metadata names both)."""
        if self._endpoints is None:
            assert self.auth.issuer is not None
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as client:
                for url in metadata_urls(self.auth.issuer):
                    try:
                        response = await client.get(url)
                    except httpx.HTTPError:
                        continue
                    if response.status_code != 200:
                        continue
                    try:
                        document = response.json()
                    except ValueError:
                        continue
                    if isinstance(document, dict):
                        self._endpoints = issuer_endpoints(document)
                        break
            if self._endpoints is None:
                self._endpoints = issuer_endpoints({})
        return self._endpoints

    def authorize_url(self, authorize_endpoint: str, *, state: str, verifier: str,
                      redirect_uri: str) -> str:
        """Where a page sends the person to sign in: the authorization request as this client,
        for this endpoint's resource and [auth] scopes."""
        return authorize_url(authorize_endpoint, client_id=self.auth.review_client_id,
                             redirect_uri=redirect_uri, state=state, verifier=verifier,
                             resource=self.resource, scopes=list(self.auth.scopes))

    async def redeem(self, code: str, verifier: str, redirect_uri: str) -> str | None:
        """The access token the issuer gives for this code and PKCE verifier, else None."""
        try:
            _, token_endpoint = await self.endpoints()
        except Refusal as refusal:
            log.warning("sign-in: %s", refusal)
            return None
        form = token_request(code, client_id=self.auth.review_client_id, redirect_uri=redirect_uri,
                             verifier=verifier, resource=self.resource)
        try:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as client:
                response = await client.post(token_endpoint, data=form)
            token = response.json().get("access_token") if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("sign-in: token request failed: %s", exc)
            return None
        return token if isinstance(token, str) else None
