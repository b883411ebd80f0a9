"""The issuer's side of a page sign-in (authorization code + PKCE as a public client): its
endpoints read from its metadata once, and a code redeemed for a token. The review page and the
dashboard both sign people in this way; what a token then means is core's."""

from __future__ import annotations

import logging

import httpx
from revetly_core.auth.review_signin import issuer_endpoints, token_request
from revetly_core.config import AuthSection

from revetly_core import Refusal
from revetly_mcp.auth import HTTP_TIMEOUT, metadata_urls

log = logging.getLogger("revetly.signin")


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
