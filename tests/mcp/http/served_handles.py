"""The handles the served-endpoint tests hold: the local issuer and a running endpoint."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from tests.support.processes import Server


class IssuerHandle:
    """The running issuer and the token requests tests make of it."""

    def __init__(self, base: str) -> None:
        self.base = base

    def token(self, username: str, resource: str | None, **extra: Any) -> str:
        data = {"grant_type": "password", "username": username, **extra}
        if resource:
            data["resource"] = resource
        response = httpx.post(f"{self.base}/token", data=data)
        response.raise_for_status()
        return str(response.json()["access_token"])

    def machine_token(self, client_id: str, resource: str) -> str:
        response = httpx.post(f"{self.base}/token", data={
            "grant_type": "client_credentials", "client_id": client_id, "resource": resource})
        response.raise_for_status()
        return str(response.json()["access_token"])

    def revoke(self, token: str) -> None:
        httpx.post(f"{self.base}/revoke", data={"token": token}).raise_for_status()

    def rotate(self) -> str:
        response = httpx.post(f"{self.base}/rotate")
        response.raise_for_status()
        return str(response.json()["kid"])


class Served:
    """A running endpoint: its base URL, resource, and the subprocess behind it."""

    def __init__(self, server: Server, port: int, path: str = "/mcp") -> None:
        self.server = server
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.url = f"{self.base}{path}"


def auth_block(issuer: IssuerHandle, **extra: str) -> str:
    lines = ["[auth]", 'verifier = "jwt"', f'issuer = "{issuer.base}"',
             f'introspection_url = "{issuer.base}/introspect"']
    lines += [f"{k} = {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n"


ServeFactory = Callable[..., Served]


