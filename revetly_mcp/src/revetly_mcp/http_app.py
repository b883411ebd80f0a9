"""The served endpoint: the same MCP server as stdio, on the SDK's Streamable HTTP app.

What this module adds around the SDK's app is transport only: the Origin check on every
request, the 404 naming what is spoken at the previous generation's addresses, the RFC 9728
document at the resource's own path and at the root, a health answer, and the standalone GET
stream's list_changed announcement. Who the caller is, what it may do and what is audited are
revetly_core.auth's (ServedSurface); the token itself is checked by revetly_mcp.auth.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
from anyio.abc import TaskGroup
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl
from revetly_core.auth import (
    ANONYMOUS,
    DECLARED_LOGGER,
    AuditLog,
    Caller,
    DeclaredCounter,
    ServedSurface,
    audit_log_path,
    declared_line,
    is_loopback_host,
    metadata_paths,
    resource_metadata,
    resource_url,
    transport_error_body,
)
from revetly_core.auth.origins import (
    CORS_EXPOSED_HEADERS,
    CORS_METHODS,
    CORS_REQUEST_HEADERS,
    normal_origin,
    origin_allowed,
    origin_refusal_body,
    origin_refused_line,
)
from revetly_core.auth.review_links import review_base_url
from revetly_core.config import Config
from revetly_core.writes.gate import ClientDeclaration
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from revetly_core import Engine, __version__
from revetly_mcp.auth import JwtVerifier
from revetly_mcp.review_routes import ReviewPage
from revetly_mcp.sdk_seam import lowlevel_server
from revetly_mcp.server import RevetlyServer
from revetly_mcp.session import Sessions, asks_mid_call, declared_params

if TYPE_CHECKING:
    from revetly_core.governed.dashboard import FeedbackDashboard

log = logging.getLogger("revetly.http")

ANNOUNCE_WAIT = 5.0
"""Seconds a session's list_changed announcement waits for its GET stream to attach."""
_POLL = 0.05


@dataclass(frozen=True)
class Address:
    """Where the endpoint binds and which resource it is."""

    host: str
    port: int
    path: str
    resource: str

    @property
    def origins(self) -> set[str]:
        """The endpoint's own origins: the bound one and the public one."""
        out = set()
        for url in (f"http://{self.host}:{self.port}", self.resource):
            parts = urlsplit(url)
            out.add(f"{parts.scheme}://{parts.netloc}".lower())
        return out


def current_caller() -> Caller:
    """The caller of the request being served: the verified token's claims, or nobody."""
    token = get_access_token()
    if token is None:
        return ANONYMOUS
    return Caller(dict(token.claims or {}))


class OriginGuard:
    """[served] allowed_origins on every request: an Origin neither declared nor the
    endpoint's own is answered 403 naming the setting, and the refusal is audited (a request
    with no Origin passes)."""

    def __init__(self, app: ASGIApp, allowed: set[str], audit: AuditLog | None = None) -> None:
        self.app = app
        self.allowed = allowed
        self.audit = audit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            origin = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"origin"),
                          None)
            if not origin_allowed(origin, self.allowed):
                assert origin is not None
                log.warning("refused a request from origin %r: not in [served] allowed_origins",
                            origin[:200])
                if self.audit is not None:
                    self.audit.append(origin_refused_line(origin, scope.get("method", ""),
                                                          scope.get("path", "")))
                await JSONResponse(origin_refusal_body(origin), status_code=403)(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)


def page_callers(app: ASGIApp, declared: list[str]) -> ASGIApp:
    """CORS for the declared origins on the MCP path: a page there may send the transport's
    headers and read its session id back (without which it loses its session at call two)."""
    if not declared:
        return app
    return CORSMiddleware(app, allow_origins=[normal_origin(o) for o in declared],
                          allow_methods=list(CORS_METHODS), allow_headers=list(CORS_REQUEST_HEADERS),
                          expose_headers=list(CORS_EXPOSED_HEADERS), max_age=600)


class HttpRevetlyServer(RevetlyServer):
    """The shared server, announcing list_changed on the session's standalone GET stream once
    it is attached (waiting up to ANNOUNCE_WAIT for it) rather than into no stream at all."""

    def __init__(self, engine: Engine, project: str | None, surface: ServedSurface) -> None:
        super().__init__(engine, project, surface)
        self.tasks: TaskGroup | None = None
        self.streams_of: Callable[[str], bool] = lambda sid: False
        self.transport_of: Callable[[str], Any] = lambda sid: None
        self.declared = Sessions()
        self.counter = DeclaredCounter()

    async def _announce_once(self, rctx: ServerRequestContext[Any, Any]) -> None:
        self._write_declared(rctx)
        if rctx.session.client_params is None:
            return
        state = self.sessions.state(rctx)
        if state.announced:
            return
        state.announced = True
        request = rctx.request
        sid = request.headers.get("mcp-session-id") if isinstance(request, Request) else None
        if sid is not None:
            self._settle_bodies(sid, rctx)
        if rctx.method == "tools/list":
            return
        if self.tasks is None or sid is None:
            await rctx.session.send_tool_list_changed()
            return
        self.tasks.start_soon(self._announce_when_attached, rctx.session, sid)

    def _settle_bodies(self, sid: str, rctx: ServerRequestContext[Any, Any]) -> None:
        """From a session's second request on, a client the engine never asks anything mid-call
        is answered in JSON bodies rather than one SSE stream per POST (the GET stream stays)."""
        transport = self.transport_of(sid)
        if transport is not None and not asks_mid_call(declared_params(rctx)):
            transport.is_json_response_enabled = True

    def _write_declared(self, rctx: ServerRequestContext[Any, Any]) -> None:
        """The revetly.declared line, once per session on its first request; never fails it.
        (A 2026-07-28 exchange has no session to write it once for, so it writes none.)"""
        if rctx.session.client_params is None:
            return
        try:
            state = self.declared.state(rctx)
            if state.announced:
                return
            state.announced = True
            decl = ClientDeclaration.from_initialize(declared_params(rctx),
                                                     issuer=self.gate.issuer)
            logging.getLogger(DECLARED_LOGGER).info(declared_line(decl, self.counter.next(decl)))
        except Exception as exc:  # a diagnostic never fails a call
            log.debug("declared line not written: %s", exc)

    async def _announce_when_attached(self, session: Any, sid: str) -> None:
        with anyio.move_on_after(ANNOUNCE_WAIT):
            while not self.streams_of(sid):
                await anyio.sleep(_POLL)
        try:
            await session.send_tool_list_changed()
        except Exception as exc:  # a session gone meanwhile is not the server's failure
            log.debug("list_changed not sent to %s: %s", sid, exc)


def _get_stream_open(manager: Any, sid: str) -> bool:
    """Whether the session's standalone GET stream is attached (read off the SDK's transport)."""
    from mcp.server.streamable_http import GET_STREAM_KEY

    transport = getattr(manager, "_server_instances", {}).get(sid)
    return transport is not None and GET_STREAM_KEY in getattr(transport, "_request_streams", {})


def security_settings(address: Address, config: Config) -> TransportSecuritySettings:
    """The SDK's own Host / Origin protection: on for a loopback bind without a proxy."""
    declared = list(config.served.allowed_origins)
    own = sorted(address.origins)
    if is_loopback_host(address.host) and not config.served.public_url:
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=[*own, *declared])
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def build_http_app(engine: Engine, address: Address, *, project: str | None = None,
                   read_only: bool = False, verifier: JwtVerifier | None = None,
                   dashboard: FeedbackDashboard | None = None) -> Starlette:
    """The endpoint's ASGI app: the shared server's tools on the SDK's Streamable HTTP app, and
    the feedback dashboard at /dashboard (unconfigured without the application's `dashboard`)."""
    config = engine.config
    audit = (AuditLog(audit_log_path(engine.root, config.auth.audit_log))
             if config.auth.audit_log else None)
    surface = ServedSurface(engine, project, caller=current_caller,
                            read_only=read_only or config.served.read_only, audit=audit)
    server = HttpRevetlyServer(engine, project, surface)
    low = lowlevel_server(server.mcp)
    auth_settings = None
    if verifier is not None:
        assert config.auth.issuer is not None
        auth_settings = AuthSettings(issuer_url=AnyHttpUrl(config.auth.issuer),
                                     resource_server_url=AnyHttpUrl(address.resource),
                                     required_scopes=list(config.auth.scopes) or None,
                                     validate_token_resource=True)
    inner = low.streamable_http_app(streamable_http_path=address.path,
                                    transport_security=security_settings(address, config),
                                    host=address.host, auth=auth_settings,
                                    token_verifier=verifier)
    manager = low.session_manager
    server.streams_of = lambda sid: _get_stream_open(manager, sid)
    server.transport_of = lambda sid: getattr(manager, "_server_instances", {}).get(sid)

    def gone(what: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return JSONResponse(transport_error_body(address.path, what), status_code=404)
        return endpoint

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "endpoint": address.path, "version": __version__,
                             "auth": config.auth.verifier or "none"})

    routes: list[Route | Mount] = [
        Route("/health", health, methods=["GET"]),
        Route("/sse", gone("HTTP+SSE (/sse)"), methods=["GET", "POST"]),
        Route("/messages", gone("HTTP+SSE (/messages/)"), methods=["GET", "POST"]),
        Route("/messages/{rest:path}", gone("HTTP+SSE (/messages/)"), methods=["GET", "POST"]),
    ]
    if verifier is not None:
        document = json.dumps(resource_metadata(address.resource, config.auth)).encode()

        async def metadata(request: Request) -> Response:
            return Response(document, media_type="application/json",
                            headers={"Cache-Control": "public, max-age=3600",
                                     "Access-Control-Allow-Origin": "*"})
        for well_known in dict.fromkeys(metadata_paths(address.resource)):
            routes.append(Route(well_known, metadata, methods=["GET"]))
        page = ReviewPage(surface, verifier, config.auth, resource=address.resource,
                          base=review_base_url(address.resource, address.path), core=server.core)
        server.gate.serve_url_gate(page)
        routes += page.routes()
    from revetly_mcp.dashboard_routes import DashboardPage  # ADR 0036

    routes += DashboardPage(dashboard, verifier, config.auth, resource=address.resource,
                            base=review_base_url(address.resource, address.path),
                            core=server.core, read_only=surface.read_only).routes()
    routes.append(Mount("/", app=page_callers(inner, list(config.served.allowed_origins))))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), anyio.create_task_group() as tasks:
            server.tasks = tasks
            yield
            tasks.cancel_scope.cancel()

    allowed = address.origins | set(config.served.allowed_origins)
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(OriginGuard, allowed=allowed, audit=audit)])


def address_of(config: Config, host: str | None, port: int | None, path: str | None) -> Address:
    """The bind address: the command line over [served], and the resource it serves."""
    served = config.served
    h = host or served.host
    p = served.port if port is None else port
    pa = path or served.path
    return Address(h, p, pa, resource_url(served, h, p, pa))
