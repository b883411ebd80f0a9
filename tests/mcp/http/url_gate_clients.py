"""An SDK client that declares url-mode elicitation: it keeps every link the endpoint hands it
and every notifications/elicitation/complete that reaches its session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ElicitCompleteNotification, ElicitRequestURLParams, ElicitResult

from tests.mcp.http.http_clients import UNCAPPED_EVENTS

COMPLETE_WITHIN = 30.0
"""Seconds a test waits for elicitation/complete before failing (a bound, not a measurement)."""


@dataclass
class UrlGateClient:
    """The client, the (url, elicitation id) pairs it was handed, the form dialogs it was put
    (and dismissed), the ids completed."""

    client: Client
    links: list[tuple[str, str]] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)
    _arrived: anyio.Event = field(default_factory=anyio.Event)

    async def wait_complete(self, elicitation_id: str) -> None:
        with anyio.fail_after(COMPLETE_WITHIN):
            while elicitation_id not in self.completed:
                await self._arrived.wait()
                self._arrived = anyio.Event()


@asynccontextmanager
async def url_gate_client(url: str, token: str,
                          mode: Literal["legacy", "auto"] = "legacy") -> AsyncIterator[UrlGateClient]:
    """A url-elicitation client on the endpoint under `token` (none: no bearer; the handshake era by default;
    mode="auto" negotiates 2026-07-28)."""
    holder: dict[str, UrlGateClient] = {}

    async def on_elicit(ctx: Any, params: Any) -> ElicitResult:
        if not isinstance(params, ElicitRequestURLParams):  # a form dialog: dismissed
            holder["gate"].dialogs.append(str(params.message))
            return ElicitResult(action="decline")
        holder["gate"].links.append((params.url, str(params.elicitation_id)))
        return ElicitResult(action="accept")

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, ElicitCompleteNotification):
            gate = holder["gate"]
            gate.completed.append(root.params.elicitation_id)
            gate._arrived.set()

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http, \
            Client(streamable_http_client(url, http_client=http, **UNCAPPED_EVENTS),
                   mode=mode, elicitation_callback=on_elicit,
                   message_handler=on_message) as client:
        holder["gate"] = UrlGateClient(client)
        yield holder["gate"]
