"""Running the served endpoint: startup refusals first, then uvicorn until SIGTERM."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING

import uvicorn
from revetly_core.auth import check_address_rule, check_grants
from revetly_core.config import parse_config

from revetly_core import Engine, Refusal
from revetly_mcp.http_app import Address, address_of, build_http_app

if TYPE_CHECKING:
    from revetly_core.governed.dashboard import FeedbackDashboard

HTTP_PARSER = "httptools"
"""uvicorn's HTTP/1.1 implementation: the C parser (a declared dependency), not pure-Python h11."""
EVENT_LOOP = "auto"
"""uvicorn's event loop: uvloop where it is installed (declared off Windows), else asyncio's."""


def _checked_path(path: str | None) -> str | None:
    """--path as [served] path would be validated (a refusal names served.path)."""
    if path is None:
        return None
    return parse_config({"served": {"path": path}}, origin="--path").served.path


def prepare(instance: str | None, project: str | None, host: str | None, port: int | None,
            path: str | None, read_only: bool, dashboard: FeedbackDashboard | None = None
            ) -> tuple[Engine, Address, object]:
    """Open the instance and check everything that refuses a start: the address rule, a
    verifier that resolves, the project binding. Returns the engine, address and app."""
    engine = Engine.open(instance)
    address = address_of(engine.config, host, port, _checked_path(path))
    check_address_rule(address.host, engine.config.auth)
    check_grants(engine.config)
    verifier = None
    if engine.config.auth.verifier is not None:
        from revetly_mcp.auth import build_verifier

        verifier = build_verifier(engine.config.auth, address.resource, dict(os.environ))
    app = build_http_app(engine, address, project=project, read_only=read_only,
                         verifier=verifier, dashboard=dashboard)
    return engine, address, app


def run_http(instance: str | None, project: str | None, *, host: str | None = None,
             port: int | None = None, path: str | None = None, read_only: bool = False,
             dashboard: FeedbackDashboard | None = None) -> int:
    """`revetly serve --http` / `revetly-mcp --http`: refusals stop it before it binds
    (one line on stderr, exit status 2); otherwise serve until SIGTERM or Ctrl-C. An
    application serves its FeedbackDashboard at /dashboard by passing it here (ADR 0036)."""
    try:
        _, address, app = prepare(instance, project, host, port, path, read_only, dashboard)
    except Refusal as refusal:
        setting = refusal.extra.get("setting")
        named = f" [{setting}]" if setting else ""
        sys.stderr.write(f"revetly-mcp: refused ({refusal.code}){named}: {refusal}\n")
        return 2
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    revetly_log = logging.getLogger("revetly")
    revetly_log.addHandler(handler)
    revetly_log.setLevel(logging.INFO)
    revetly_log.propagate = False
    sys.stderr.write(f"revetly-mcp: serving Streamable HTTP at "
                     f"http://{address.host}:{address.port}{address.path} "
                     f"(resource {address.resource})\n")
    sys.stderr.flush()
    config = uvicorn.Config(app, host=address.host, port=address.port,  # type: ignore[arg-type]
                            log_level="warning", lifespan="on", timeout_graceful_shutdown=5,
                            http=HTTP_PARSER, loop=EVENT_LOOP)
    uvicorn.Server(config).run()
    return 0
