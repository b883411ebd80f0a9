"""A real local openai-compatible endpoint (tests/support/fake_llm.py) that answers
graphiti-core's extraction and embedding requests, and a small full instance on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.core.gitrepo import Instance, md
from tests.support.fake_llm import TOKEN
from tests.support.processes import Server, free_port, python

SUPPORT = Path(__file__).resolve().parents[2] / "support"


class FakeLlm:
    """The running fake: its base URL, its counters, and the switch that makes it fail."""

    def __init__(self, base: str) -> None:
        self.base = base

    def count(self) -> dict:  # type: ignore[type-arg]
        return dict(httpx.get(f"{self.base}/count", timeout=10).json())

    def mode(self, mode: str) -> None:
        httpx.post(f"{self.base}/mode", json={"mode": mode}, timeout=10).raise_for_status()

    def config(self) -> str:
        """The [llm] and [embedding] sections that make an instance full on this fake."""
        return (f'\n[llm]\nprovider = "openai-compatible"\napi_url = "{self.base}/v1"\n'
                f'model = "fake-extractor"\ntoken_env = "FAKE_LLM_TOKEN"\n'
                f'\n[embedding]\nprovider = "openai-compatible"\napi_url = "{self.base}/v1"\n'
                f'model = "fake-embedder"\ntoken_env = "FAKE_LLM_TOKEN"\n')


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLlm]:
    port = free_port()
    log = tmp_path_factory.mktemp("fake-llm") / "server.log"
    server = Server(python(str(SUPPORT / "fake_llm.py"), "--port", str(port), "--token", TOKEN),
                    f"http://127.0.0.1:{port}/health", log)
    server.wait_ready()
    yield FakeLlm(f"http://127.0.0.1:{port}")
    server.stop()


@pytest.fixture()
def fake_llm(llm_server: FakeLlm, monkeypatch: pytest.MonkeyPatch) -> FakeLlm:
    """The fake, answering normally, its token exported."""
    monkeypatch.setenv("FAKE_LLM_TOKEN", TOKEN)
    llm_server.mode("ok")
    return llm_server


STORIES = [
    ("STORY-0001", "Checkout retries payments",
     "The Payment Gateway retries STORY-0002 when the Stripe Webhook fails. "
     "We decided the Retry Budget stays at three attempts."),
    ("STORY-0002", "Webhook receiver", "The Stripe Webhook posts events to the Event Queue."),
    ("STORY-0003", "Invoice export", "Finance downloads invoices as a spreadsheet."),
]


def write_stories(instance: Instance, extra_config: str = "") -> Instance:
    g = instance.git
    for artifact_id, title, body in STORIES:
        g.write(f"backlog/{artifact_id}.md", md(artifact_id, title, "story", body,
                                                status="ready", created="2025-01-10",
                                                updated="2025-01-10"))
    g.write("revetly.toml", g.read("revetly.toml") + extra_config)
    g.commit("stories")
    return instance
