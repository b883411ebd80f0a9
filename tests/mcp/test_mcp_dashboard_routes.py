"""The dashboard's routes module: an endpoint serving no dashboard loads no governed layer, and
an action's answer is served with the status its refusal calls for."""

from __future__ import annotations

import subprocess
import sys

from revetly_mcp.dashboard_routes import refusal_status


def test_the_dashboard_routes_load_none_of_the_governed_layer() -> None:
    probe = ("import sys, revetly_mcp.http_app, revetly_mcp.dashboard_routes; "
             "print(sorted(m for m in sys.modules if m.startswith('revetly_core.governed')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_an_actions_http_status_follows_its_refusal() -> None:
    assert refusal_status({"kind": "dashboard_action", "answer": {}}) == 200
    assert refusal_status({"refusal": {"code": "not-owner"}}) == 403
    assert refusal_status({"refusal": {"code": "bad-argument"}}) == 400
    assert refusal_status({"refusal": {"code": "memory-not-bound"}}) == 503
    assert refusal_status({"refusal": {"code": "activation-checks-failed"}}) == 409
