"""Signing a person in on the review page: PKCE, the authorization request, the origin rule,
and sign-in state bound to the one link it started from."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from hypothesis import given
from hypothesis import strategies as st
from revetly_core.auth.review_signin import (
    SIGNIN_TTL,
    SignIns,
    authorize_url,
    callback_url,
    decision_origin_refusal,
    is_own_origin,
    issuer_endpoints,
    lacks_scopes,
    new_pkce_verifier,
    pkce_challenge,
    token_request,
)

from revetly_core import Refusal

UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"


@given(st.text(alphabet=UNRESERVED, min_size=43, max_size=128))
def test_the_s256_challenge_is_the_one_authlib_computes(verifier: str) -> None:
    assert pkce_challenge(verifier) == create_s256_code_challenge(verifier)


def test_a_fresh_verifier_is_long_enough_and_unreserved() -> None:
    verifier = new_pkce_verifier()
    assert 43 <= len(verifier) <= 128 and set(verifier) <= set(UNRESERVED)


def test_the_authorization_request_is_code_with_s256_for_the_resource() -> None:
    url = authorize_url("https://as.example/authorize", client_id="revetly-review",
                        redirect_uri="https://r.example/review/callback", state="st",
                        verifier="v" * 43, resource="https://r.example/mcp", scopes=["mcp"])
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert query == {"response_type": "code", "client_id": "revetly-review",
                     "redirect_uri": "https://r.example/review/callback", "state": "st",
                     "code_challenge": pkce_challenge("v" * 43),
                     "code_challenge_method": "S256", "resource": "https://r.example/mcp",
                     "scope": "mcp"}


def test_the_code_is_redeemed_as_a_public_client_with_its_verifier() -> None:
    form = token_request("c0de", client_id="revetly-review", redirect_uri=callback_url(
        "https://r.example/"), verifier="v" * 43, resource="https://r.example/mcp")
    assert form["grant_type"] == "authorization_code" and form["code_verifier"] == "v" * 43
    assert form["redirect_uri"] == "https://r.example/review/callback"
    assert "client_secret" not in form


def test_issuer_metadata_without_both_endpoints_is_refused_naming_the_issuer() -> None:
    assert issuer_endpoints({"authorization_endpoint": "a", "token_endpoint": "t"}) == ("a", "t")
    with pytest.raises(Refusal) as caught:
        issuer_endpoints({"authorization_endpoint": "a"})
    assert caught.value.extra["setting"] == "auth.issuer"


def test_own_origin_is_the_bases_scheme_host_and_port_case_and_slash_blind() -> None:
    base = "https://Revetly.example:8443/team"
    assert is_own_origin("https://revetly.example:8443/", base)
    assert not is_own_origin(None, base) and not is_own_origin("https://revetly.example", base)


def test_a_decision_is_accepted_only_from_the_pages_own_origin() -> None:
    base = "https://Revetly.example:8443/team"
    assert decision_origin_refusal("https://revetly.example:8443", base) is None
    for origin in ("https://app.example", "null", None, "http://revetly.example:8443"):
        refusal = decision_origin_refusal(origin, base)
        assert refusal is not None and refusal.code == "refused", origin


def test_a_started_sign_in_comes_back_once() -> None:
    signins = SignIns()
    state, pending = signins.start("REV-0123456789abcdef", "n1")
    assert signins.finish(state) is pending
    assert signins.finish(state) is None and signins.finish(None) is None


def test_a_sign_in_that_took_too_long_is_not_finished() -> None:
    now = [0.0]
    signins = SignIns(clock=lambda: now[0])
    state, _ = signins.start("REV-0123456789abcdef", "n1")
    now[0] += SIGNIN_TTL + 1
    assert signins.finish(state) is None


def test_a_review_session_answers_only_for_the_link_it_was_opened_on() -> None:
    signins = SignIns()
    _, pending = signins.start("REV-0123456789abcdef", "n1")
    sid = signins.open(pending, "tok", {"sub": "bo"})
    found = signins.session(sid, "REV-0123456789abcdef", "n1")
    assert found is not None and found.claims == {"sub": "bo"} and found.csrf
    assert signins.session(sid, "REV-0123456789abcdef", "n2") is None
    assert signins.session(sid, "REV-ffffffffffffffff", "n1") is None
    assert signins.session("other", "REV-0123456789abcdef", "n1") is None
    signins.close(sid)
    assert signins.session(sid, "REV-0123456789abcdef", "n1") is None


def test_a_token_missing_a_required_scope_signs_nobody_in() -> None:
    assert not lacks_scopes({"scope": "revetly.read revetly.write"}, ["revetly.read"])
    assert not lacks_scopes({"scp": ["revetly.read"]}, ["revetly.read"])
    assert lacks_scopes({"scope": "other"}, ["revetly.read"])
    assert lacks_scopes({}, ["revetly.read"]) and not lacks_scopes({}, [])
