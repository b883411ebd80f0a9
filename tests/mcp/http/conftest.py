"""Fixtures of the served-endpoint tests: a real local issuer and a real `revetly serve --http`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

SUPPORT = Path(__file__).resolve().parents[2] / "support"
sys.path.insert(0, str(SUPPORT))

from processes import Server, free_port, python  # noqa: E402


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


@pytest.fixture(scope="session")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerHandle]:
    port = free_port()
    log = tmp_path_factory.mktemp("issuer") / "issuer.log"
    server = Server(python(str(SUPPORT / "issuer.py"), "--port", str(port)),
                    f"http://127.0.0.1:{port}/health", log)
    server.wait_ready()
    yield IssuerHandle(f"http://127.0.0.1:{port}")
    server.stop()


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


@pytest.fixture()
def serve(tmp_path: Path) -> Iterator[ServeFactory]:
    """Start `revetly serve --http` on an instance with extra revetly.toml text appended."""
    started: list[Server] = []

    def start(root: Path, toml: str = "", *args: str) -> Served:
        if toml:
            config = root / "revetly.toml"
            config.write_text(config.read_text() + "\n" + toml)
        port = free_port()
        server = Server(python("-m", "revetly_cli", "serve", "--http", "--port", str(port),
                               "--instance", str(root), *args),
                        f"http://127.0.0.1:{port}/health", tmp_path / f"serve-{port}.log")
        started.append(server)
        server.wait_ready()
        return Served(server, port)

    yield start
    for server in started:
        server.stop()


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"
