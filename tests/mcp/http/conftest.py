"""Fixtures of the served-endpoint tests: a real local issuer and a real `revetly serve --http`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp.http.served_handles import IssuerHandle, Served, ServeFactory
from tests.support.processes import Server, free_port, python

SUPPORT = Path(__file__).resolve().parents[2] / "support"


@pytest.fixture(scope="session")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerHandle]:
    port = free_port()
    log = tmp_path_factory.mktemp("issuer") / "issuer.log"
    server = Server(python(str(SUPPORT / "issuer.py"), "--port", str(port)),
                    f"http://127.0.0.1:{port}/health", log)
    server.wait_ready()
    yield IssuerHandle(f"http://127.0.0.1:{port}")
    server.stop()


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
