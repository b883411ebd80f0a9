"""The page sign-in's shell helpers shared by the review page and the dashboard
(revetly_mcp.issuer_signin), one test each."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from revetly_core.config import AuthSection
from revetly_mcp.auth import JwksCache, JwtVerifier
from revetly_mcp.issuer_signin import IssuerClient, page_claims, set_session_cookie
from starlette.responses import Response

ISSUER = "http://127.0.0.1:1"
RESOURCE = "http://127.0.0.1:2/mcp"


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


def _verifier_and_token(**extra: Any) -> tuple[JwtVerifier, str]:
    key = RSAKey.generate_key(2048, parameters={"kid": f"k{time.monotonic_ns()}"}, private=True)
    jwks = JwksCache("http://127.0.0.1:1/jwks")
    jwks.load({"keys": [key.as_dict(private=False)]})
    now = int(time.time())
    claims = {"iss": ISSUER, "sub": "ana", "aud": RESOURCE, "iat": now, "exp": now + 300, **extra}
    token = jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)
    return JwtVerifier(AuthSection(verifier="jwt", issuer=ISSUER), RESOURCE, jwks), token


def test_the_authorize_url_is_this_clients_request_for_the_resource_and_scopes() -> None:
    auth = AuthSection(verifier="jwt", issuer=ISSUER, scopes=["revetly.read"],
                       review_client_id="pages")
    url = IssuerClient(auth, RESOURCE).authorize_url(
        f"{ISSUER}/authorize", state="s1", verifier="v" * 43, redirect_uri="http://x/cb")
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert url.startswith(f"{ISSUER}/authorize?")
    assert (query["client_id"], query["resource"], query["scope"], query["state"],
            query["redirect_uri"]) == ("pages", RESOURCE, "revetly.read", "s1", "http://x/cb")


def test_a_session_cookie_is_http_only_same_site_lax_and_path_scoped() -> None:
    response = Response()
    set_session_cookie(response, "revetly_page", "sid1", max_age=3600.0, path="/page", secure=True)
    header = response.headers["set-cookie"].lower()
    assert header.startswith("revetly_page=sid1;")
    for part in ("httponly", "samesite=lax", "path=/page", "max-age=3600", "secure"):
        assert part in header, part


@pytest.mark.anyio
async def test_page_claims_need_an_admitted_token_carrying_every_required_scope() -> None:
    verifier, token = _verifier_and_token(scope="revetly.read")
    claims = await page_claims(verifier, token, ["revetly.read"])
    assert claims is not None and claims["sub"] == "ana"
    assert await page_claims(verifier, token, ["revetly.write"]) is None
    assert await page_claims(verifier, None, []) is None
    assert await page_claims(verifier, token + "x", []) is None
