"""The endpoint as an OAuth resource server, against a real local issuer: the 401 and its
RFC 9728 document, audience, expiry, revocation mid-session, key rotation, session ownership,
and the address rule at startup."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.mcp.http.http_clients import http_client
from tests.mcp.http.served_handles import IssuerHandle, ServeFactory, auth_block
from tests.support.processes import free_port

pytestmark = pytest.mark.anyio

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw-test", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "context_health", "arguments": {}}}


def _bearer(token: str) -> dict[str, str]:
    return {**HEADERS, "Authorization": f"Bearer {token}"}


def _open_session(url: str, token: str) -> dict[str, str]:
    """initialize + initialized with a token; the headers that address the session."""
    init = httpx.post(url, json=INIT, headers=_bearer(token), timeout=30)
    assert init.status_code == 200, init.text
    session = {**_bearer(token), "mcp-session-id": init.headers["mcp-session-id"],
               "mcp-protocol-version": "2025-11-25"}
    httpx.post(url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
               timeout=30)
    return session


def _serve_with_auth(root: Path, serve: ServeFactory, issuer: IssuerHandle, **extra: str):  # type: ignore[no-untyped-def]
    return serve(root, auth_block(issuer, **extra))


def test_no_token_is_answered_401_naming_the_resource_metadata(
        synced_instance: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = _serve_with_auth(synced_instance, serve, issuer)
    response = httpx.post(served.url, json=INIT, headers=HEADERS)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    metadata = f"{served.base}/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata}"' in challenge
    own = httpx.get(metadata)
    root = httpx.get(f"{served.base}/.well-known/oauth-protected-resource")
    assert own.status_code == root.status_code == 200
    assert own.content == root.content
    assert own.json() == {"resource": served.url, "authorization_servers": [issuer.base],
                          "bearer_methods_supported": ["header"]}


async def test_a_token_for_this_resource_calls_every_tool(
        synced_instance: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = _serve_with_auth(synced_instance, serve, issuer)
    token = issuer.token("ana", served.url)
    async with http_client(served.url, token) as client:
        result = await client.call_tool("context_health", {})
        assert "refusal" not in (result.structured_content or {})
        assert {t.name for t in (await client.list_tools()).tools} >= {"search_context",
                                                                       "submit_draft"}


@pytest.mark.parametrize("case", ["another resource", "no audience", "expired", "garbage"])
def test_a_token_that_does_not_admit_is_answered_401(
        synced_instance: Path, serve: ServeFactory, issuer: IssuerHandle, case: str) -> None:
    served = _serve_with_auth(synced_instance, serve, issuer)
    token = {"another resource": lambda: issuer.token("ana", "https://other.example/mcp"),
             "no audience": lambda: issuer.token("ana", None),
             "expired": lambda: issuer.token("ana", served.url, ttl="-120"),
             "garbage": lambda: "not-a-jwt"}[case]()
    response = httpx.post(served.url, json=INIT, headers=_bearer(token))
    assert response.status_code == 401
    assert "resource_metadata=" in response.headers["www-authenticate"]


def test_a_token_revoked_mid_session_stops_working_mid_session(
        synced_instance: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = _serve_with_auth(synced_instance, serve, issuer)
    token = issuer.token("ana", served.url)
    session = _open_session(served.url, token)
    assert httpx.post(served.url, json=CALL, headers=session, timeout=30).status_code == 200
    issuer.revoke(token)
    after = httpx.post(served.url, json=CALL, headers=session, timeout=30)
    assert after.status_code == 401


def test_another_principals_token_finds_no_such_session(
        synced_instance: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = _serve_with_auth(synced_instance, serve, issuer)
    session = _open_session(served.url, issuer.token("ana", served.url))
    bo = issuer.token("bo", served.url)
    stolen = {**session, "Authorization": f"Bearer {bo}"}
    answer = httpx.post(served.url, json=CALL, headers=stolen, timeout=30)
    unknown = httpx.post(served.url, json=CALL, timeout=30,
                         headers={**stolen, "mcp-session-id": "0123456789abcdef"})
    assert answer.status_code == unknown.status_code == 404
    assert answer.json() == unknown.json()
    assert httpx.post(served.url, json=CALL, headers=session, timeout=30).status_code == 200


def test_a_new_signing_key_is_fetched_once_and_admits_its_tokens(
        synced_instance: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = _serve_with_auth(synced_instance, serve, issuer)
    before = issuer.token("ana", served.url)
    assert httpx.post(served.url, json=INIT, headers=_bearer(before)).status_code == 200
    issuer.rotate()
    after = issuer.token("ana", served.url)
    assert httpx.post(served.url, json=INIT, headers=_bearer(after)).status_code == 200
    assert httpx.post(served.url, json=INIT, headers=_bearer(before)).status_code == 200


def _serve_fails(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "revetly_cli", "serve", "--http", "--port",
                           str(free_port()), "--instance", str(root), *args],
                          capture_output=True, text=True, timeout=120)


def test_a_non_loopback_bind_without_auth_refuses_to_start_naming_the_setting(
        synced_instance: Path) -> None:
    done = _serve_fails(synced_instance, "--host", "0.0.0.0")
    assert done.returncode == 2
    assert "auth.verifier" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_verifier_whose_issuer_does_not_answer_refuses_to_start(synced_instance: Path) -> None:
    config = synced_instance / "revetly.toml"
    config.write_text(config.read_text() + f'\n[auth]\nverifier = "jwt"\n'
                      f'issuer = "http://127.0.0.1:{free_port()}"\n')
    done = _serve_fails(synced_instance)
    assert done.returncode == 2
    assert "auth.jwks_uri" in done.stderr
