"""A real local embeddings endpoint (tests/support/fake_embeddings.py) for the provider tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_embeddings import TOKEN
from tests.support.processes import Server, free_port, python

SUPPORT = Path(__file__).resolve().parents[2] / "support"


@pytest.fixture(scope="session")
def embeddings_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (…/v1) of a fake endpoint that wants TOKEN as its bearer."""
    port = free_port()
    log = tmp_path_factory.mktemp("embeddings") / "server.log"
    server = Server(python(str(SUPPORT / "fake_embeddings.py"), "--port", str(port),
                           "--token", TOKEN), f"http://127.0.0.1:{port}/health", log)
    server.wait_ready()
    yield f"http://127.0.0.1:{port}/v1"
    server.stop()
