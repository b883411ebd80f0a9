"""The served dashboard of the tests: the world built, the application's process started on a
free port against the test issuer, and the plain-HTTP sign-in a browser would make."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from revetly_core import Engine, EvidenceService, FeedbackService, ProposalService, RuleLifecycle
from tests.core.gitrepo import Instance
from tests.core.governed.proposal_world import seed_instance
from tests.mcp.http.served_handles import IssuerHandle, auth_block
from tests.support.dashboard_world import (
    RUNTIME,
    SCOPE,
    VAULT_ID,
    DashboardWorld,
    build_dashboard_world,
)
from tests.support.processes import Server, free_port, python

SUPPORT = Path(__file__).resolve().parents[2] / "support"
APP_ORIGIN = "http://app.example"


@dataclass
class ServedDashboard:
    """The running application, its world and where everything is."""

    world: DashboardWorld
    root: Path
    homes: Path
    base: str
    server: Server

    @property
    def url(self) -> str:
        return f"{self.base}/dashboard"

    def lifecycle(self) -> tuple[EvidenceService, RuleLifecycle]:
        """The vault opened again (beside the server) and a lifecycle over it, to read state."""
        evidence = EvidenceService.open(self.homes, VAULT_ID)
        proposals = ProposalService(FeedbackService(evidence), Engine.open(self.root))
        return evidence, RuleLifecycle(proposals, runtime_versions=RUNTIME)

    def decision(self, proposal_id: str) -> dict[str, Any] | None:
        evidence, lifecycle = self.lifecycle()
        try:
            return lifecycle.proposals.reviewed(SCOPE, proposal_id)[1]
        finally:
            evidence.close()

    def state(self, rule_id: str) -> str | None:
        evidence, lifecycle = self.lifecycle()
        try:
            current = lifecycle.current(SCOPE, rule_id)
            return None if current is None else str(current["state"])
        finally:
            evidence.close()


@contextmanager
def served_dashboard(tmp_path: Path, issuer: IssuerHandle, *,
                     read_only: bool = False) -> Iterator[ServedDashboard]:
    """Build the world over a fresh instance whose [auth] names the issuer, then serve it."""
    instance = Instance(tmp_path / "inst")
    seed_instance(instance)
    config = instance.root / "revetly.toml"
    config.write_text(config.read_text() + "\n" + auth_block(issuer)
                      + f'\n[served]\nallowed_origins = ["{APP_ORIGIN}"]\n')
    homes, work = tmp_path / "homes", tmp_path / "work"
    world = build_dashboard_world(instance.root, homes, work, now=datetime.now(UTC))
    port = free_port()
    server = Server(python(str(SUPPORT / "dashboard_app.py"), str(instance.root), str(homes),
                           str(work), str(port), *(["read-only"] if read_only else [])),
                    f"http://127.0.0.1:{port}/health", tmp_path / "dashboard-app.log")
    server.wait_ready()
    try:
        yield ServedDashboard(world, instance.root, homes, f"http://127.0.0.1:{port}", server)
    finally:
        server.stop()


def sign_in(client: httpx.Client, base: str, username: str) -> httpx.Response:
    """The code + PKCE sign-in over plain HTTP: the dashboard's redirect to the issuer, the
    issuer's login form posted, its redirect to the callback; returns the dashboard page."""
    start = client.get(f"{base}/dashboard")
    assert start.status_code == 303, start.text
    authorize = start.headers["location"]
    parts = urlsplit(authorize)
    login = client.post(f"{parts.scheme}://{parts.netloc}{parts.path}",
                        data={**dict(parse_qsl(parts.query)), "username": username})
    assert login.status_code == 303, login.text
    callback = client.get(login.headers["location"])
    assert callback.status_code == 303, callback.text
    return client.get(callback.headers["location"])


def csrf_of(page: str) -> str:
    """The session's CSRF value as the page's forms carry it."""
    found = re.search(r"name='csrf' value='([^']+)'", page)
    assert found is not None, page
    return found.group(1)
