"""The SDK's own clients for the served-endpoint tests: Streamable HTTP with a bearer, stdio."""

from __future__ import annotations

import inspect
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

UNCAPPED_EVENTS: dict[str, Any] = (
    {"max_sse_event_size": None}
    if "max_sse_event_size" in inspect.signature(streamable_http_client).parameters else {})
"""No cap on one SSE event's size where the SDK has one (2.3); older clients had none."""


@asynccontextmanager
async def http_client(url: str, token: str | None = None, **options: Any) -> AsyncIterator[Client]:
    """An SDK client on the endpoint, presenting `token` as a bearer on every request."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http, \
            Client(streamable_http_client(url, http_client=http, **UNCAPPED_EVENTS),
                   mode="legacy", **options) as client:
        yield client


@asynccontextmanager
async def stdio_client(root: Path, *args: str) -> AsyncIterator[Client]:
    """An SDK client on `revetly-mcp` over stdio, on the same instance."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "revetly_mcp", "--instance", str(root), *args])
    async with Client(params, mode="legacy") as client:
        yield client
