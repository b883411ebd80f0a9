"""A small local authorization server for the served-endpoint tests (run as a subprocess).

It signs RS256 access tokens with joserfc (authlib's JOSE) and publishes:
  GET  /.well-known/oauth-authorization-server   RFC 8414 metadata
  GET  /jwks                                     the public keys
  POST /token                                    password (test users), client_credentials,
                                                 authorization_code with PKCE (S256, authlib's;
                                                 the code is bound to its client_id and
                                                 redirect_uri, as for a public client)
  GET|POST /authorize                            a login form issuing a code
  POST /introspect                               RFC 7662 (revoked or expired -> inactive)
  POST /revoke                                   RFC 7009
  POST /rotate                                   a new signing key under a new kid

Test knobs on the password grant: `resource` (RFC 8707; omitted -> no aud), `ttl` seconds
(negative -> already expired), `name`, `email`, `scope`, `groups` (comma list).

    python tests/support/issuer.py --port 9000
"""

from __future__ import annotations

import argparse
import html
import secrets
import time
import uuid
from typing import Any
from urllib.parse import urlencode

import uvicorn
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route


class Issuer:
    """The issuer's state: signing keys, issued codes, revoked token ids."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.keys: list[RSAKey] = [self._new_key()]
        self.codes: dict[str, dict[str, Any]] = {}
        self.revoked: set[str] = set()

    @staticmethod
    def _new_key() -> RSAKey:
        return RSAKey.generate_key(2048, parameters={"kid": uuid.uuid4().hex[:12]}, private=True)

    def sign(self, claims: dict[str, Any]) -> str:
        key = self.keys[-1]
        return jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)

    def mint(self, sub: str, *, resource: str | None, ttl: int = 300, extra: dict[str, Any]
             | None = None) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {"iss": self.base, "sub": sub, "iat": now, "exp": now + ttl,
                                  "jti": uuid.uuid4().hex, "client_id": "revetly-client"}
        if resource:
            claims["aud"] = resource
        claims.update({k: v for k, v in (extra or {}).items() if v not in (None, "")})
        return self.sign(claims)

    def claims(self, token: str) -> dict[str, Any] | None:
        try:
            return dict(jwt.decode(token, KeySet(self.keys)).claims)
        except Exception:
            return None


def build_app(base: str) -> Starlette:
    state = Issuer(base)

    async def metadata(request: Request) -> Response:
        return JSONResponse({
            "issuer": base, "jwks_uri": f"{base}/jwks", "token_endpoint": f"{base}/token",
            "authorization_endpoint": f"{base}/authorize",
            "introspection_endpoint": f"{base}/introspect",
            "revocation_endpoint": f"{base}/revoke",
            "code_challenge_methods_supported": ["S256"],
            "grant_types_supported": ["authorization_code", "client_credentials", "password"],
            "response_types_supported": ["code"],
        })

    async def jwks(request: Request) -> Response:
        return JSONResponse(KeySet(state.keys).as_dict(private=False))

    async def token(request: Request) -> Response:
        form = await request.form()
        grant = form.get("grant_type")
        resource = str(form.get("resource") or "") or None
        if grant == "password":
            extra: dict[str, Any] = {"name": form.get("name"), "email": form.get("email"),
                                     "scope": form.get("scope")}
            if form.get("groups"):
                extra["groups"] = str(form.get("groups")).split(",")
            tok = state.mint(str(form.get("username")), resource=resource,
                             ttl=int(str(form.get("ttl") or 300)), extra=extra)
        elif grant == "client_credentials":
            client = str(form.get("client_id") or "robot")
            tok = state.mint(client, resource=resource,
                             extra={"client_id": client, "gty": "client_credentials"})
        elif grant == "authorization_code":
            held = state.codes.pop(str(form.get("code")), None)
            verifier = str(form.get("code_verifier") or "")
            if held is None or create_s256_code_challenge(verifier) != held["challenge"] \
                    or held["redirect_uri"] != form.get("redirect_uri") \
                    or held["client_id"] != form.get("client_id"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            tok = state.mint(held["sub"], resource=held["resource"],
                             extra={"name": held["sub"].title(),
                                    "email": f"{held['sub']}@example.com"})
        else:
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        return JSONResponse({"access_token": tok, "token_type": "Bearer", "expires_in": 300})

    async def authorize(request: Request) -> Response:
        if request.method == "GET":
            q = request.query_params
            hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" '
                             f'value="{html.escape(v)}">' for k, v in q.items())
            return HTMLResponse(f"<html><body><h1>Sign in</h1><form method='post'>{hidden}"
                                "<label>User <input id='username' name='username'></label>"
                                "<button id='signin' type='submit'>Sign in</button>"
                                "</form></body></html>")
        form = await request.form()
        if form.get("code_challenge_method") != "S256" or not form.get("code_challenge"):
            return JSONResponse({"error": "invalid_request", "detail": "PKCE S256 required"},
                                status_code=400)
        code = secrets.token_urlsafe(16)
        state.codes[code] = {"sub": str(form.get("username")),
                             "challenge": str(form.get("code_challenge")),
                             "redirect_uri": str(form.get("redirect_uri")),
                             "client_id": str(form.get("client_id") or ""),
                             "resource": str(form.get("resource") or "") or None}
        query = urlencode({"code": code, "state": str(form.get("state") or "")})
        return RedirectResponse(f"{form.get('redirect_uri')}?{query}", status_code=303)

    async def introspect(request: Request) -> Response:
        form = await request.form()
        claims = state.claims(str(form.get("token")))
        active = (claims is not None and claims.get("jti") not in state.revoked
                  and int(claims.get("exp", 0)) > time.time())
        return JSONResponse({"active": True, **claims} if active and claims else
                            {"active": False})

    async def revoke(request: Request) -> Response:
        form = await request.form()
        claims = state.claims(str(form.get("token")))
        if claims is not None:
            state.revoked.add(str(claims.get("jti")))
        return Response(status_code=200)

    async def rotate(request: Request) -> Response:
        state.keys.append(Issuer._new_key())
        return JSONResponse({"kid": state.keys[-1].kid})

    return Starlette(routes=[
        Route("/.well-known/oauth-authorization-server", metadata),
        Route("/jwks", jwks),
        Route("/token", token, methods=["POST"]),
        Route("/authorize", authorize, methods=["GET", "POST"]),
        Route("/introspect", introspect, methods=["POST"]),
        Route("/revoke", revoke, methods=["POST"]),
        Route("/rotate", rotate, methods=["POST"]),
        Route("/health", lambda r: JSONResponse({"status": "ok"})),
    ])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    uvicorn.run(build_app(f"http://127.0.0.1:{port}"), host="127.0.0.1", port=port,
                log_level="warning")


if __name__ == "__main__":
    main()
