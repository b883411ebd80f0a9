"""`revetly doctor --token`: the endpoint's own verifier run on one token, offline from MCP."""

from __future__ import annotations

import os
from typing import Any

import anyio
from revetly_core.auth import token_report

from revetly_core import Engine, Refusal
from revetly_mcp.http_app import address_of


def check_token(instance: str | None, token: str, *, host: str | None = None,
                port: int | None = None, path: str | None = None,
                project: str | None = None) -> dict[str, Any]:
    """What the endpoint this instance declares would make of `token` (a refusal when the
    instance declares no verifier)."""
    from revetly_mcp.auth import build_verifier

    engine = Engine.open(instance)
    auth = engine.config.auth
    if auth.verifier is None:
        raise Refusal("refused", "[auth] declares no verifier, so the endpoint checks no token",
                      "declare [auth] verifier = \"jwt\" and issuer (docs/serving.md)",
                      {"setting": "auth.verifier"})
    address = address_of(engine.config, host, port, path)
    verifier = build_verifier(auth, address.resource, dict(os.environ))
    claims, reason = anyio.run(verifier.check, token)
    return token_report(engine.config, address.resource, claims, reason, project)
