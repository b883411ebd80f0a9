"""The jwt verifier remembers a token that passed until its exp, under the key set it passed
with; a token presented again skips the signature check, never introspection."""

from __future__ import annotations

import time
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from revetly_core.config import AuthSection
from revetly_mcp.auth import LEEWAY, JwksCache, JwtVerifier, VerifiedTokens

pytestmark = pytest.mark.anyio

ISSUER = "http://127.0.0.1:1"
RESOURCE = "http://127.0.0.1:2/mcp"


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


def _key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": f"k{time.monotonic_ns()}"}, private=True)


def _token(key: RSAKey, **extra: Any) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "sub": "ana", "aud": RESOURCE, "iat": now, "exp": now + 300,
              **extra}
    return jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)


def _verifier(key: RSAKey) -> JwtVerifier:
    jwks = JwksCache("http://127.0.0.1:1/jwks")
    jwks.load({"keys": [key.as_dict(private=False)]})
    return JwtVerifier(AuthSection(verifier="jwt", issuer=ISSUER), RESOURCE, jwks)


def test_a_remembered_token_answers_its_claims_until_exp_and_leeway() -> None:
    seen = VerifiedTokens()
    seen.remember("t", {"sub": "ana", "exp": 1000}, fetch=1)
    assert seen.claims("t", 1, now=999.0) == {"sub": "ana", "exp": 1000}
    assert seen.claims("t", 1, now=1000.0 + LEEWAY) is None
    assert seen.claims("t", 1, now=999.0) is None  # forgotten once past


def test_a_token_checked_under_another_key_set_is_not_remembered_under_this_one() -> None:
    seen = VerifiedTokens()
    seen.remember("t", {"sub": "ana", "exp": 1000}, fetch=1)
    assert seen.claims("t", 2, now=10.0) is None


def test_a_token_without_a_numeric_exp_is_never_remembered() -> None:
    seen = VerifiedTokens()
    seen.remember("t", {"sub": "ana"}, fetch=1)
    seen.remember("u", {"sub": "ana", "exp": "soon"}, fetch=1)
    assert seen.claims("t", 1, now=0.0) is None and seen.claims("u", 1, now=0.0) is None


def test_the_memory_is_bounded_forgetting_the_least_recently_presented() -> None:
    seen = VerifiedTokens(limit=2)
    seen.remember("a", {"exp": 10}, fetch=1)
    seen.remember("b", {"exp": 10}, fetch=1)
    assert seen.claims("a", 1, now=0.0) is not None  # a is now the most recent
    seen.remember("c", {"exp": 10}, fetch=1)
    assert seen.claims("b", 1, now=0.0) is None
    assert seen.claims("a", 1, now=0.0) is not None and seen.claims("c", 1, now=0.0) is not None


async def test_a_token_that_passed_is_remembered_with_its_claims() -> None:
    key = _key()
    verifier = _verifier(key)
    token = _token(key)
    claims, reason = await verifier.check(token)
    assert reason is None and claims is not None and claims["sub"] == "ana"
    assert verifier.verified.claims(token, verifier.jwks.fetches, time.time()) == claims
    again, _ = await verifier.check(token)
    assert again == claims


async def test_a_refused_token_is_not_remembered() -> None:
    key = _key()
    verifier = _verifier(key)
    token = _token(key, aud="http://elsewhere/mcp")
    claims, reason = await verifier.check(token)
    assert claims is None and reason is not None
    assert verifier.verified.claims(token, verifier.jwks.fetches, time.time()) is None


async def test_a_key_set_refetched_without_the_tokens_key_refuses_a_remembered_token() -> None:
    old, new = _key(), _key()
    verifier = _verifier(old)
    token = _token(old)
    assert (await verifier.check(token))[0] is not None
    verifier.jwks.load({"keys": [new.as_dict(private=False)]})  # the issuer dropped the old key
    # the old kid is unknown now, so the check refetches once (nothing answers there) and fails
    claims, reason = await verifier.check(token)
    assert claims is None and reason is not None
