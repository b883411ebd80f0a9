"""The dashboard's HTML escapes every value it renders and carries no script."""

from __future__ import annotations

from typing import Any

from revetly_mcp.dashboard_html import (
    action_outcome_page,
    dashboard_page,
    proposals_html,
    unconfigured_page,
)

HOSTILE = "<script>alert(1)</script>'\""


def hostile_view() -> dict[str, Any]:
    action = {"execution_id": "exec-" + "0" * 32, "tool": HOSTILE, "tool_version": HOSTILE,
              "actor": HOSTILE, "admitted_at": HOSTILE, "arguments": {"summary": HOSTILE},
              "arguments_sha256": HOSTILE, "status": "acknowledged", "hold": False,
              "checks": [{"verifier_id": HOSTILE, "binding": "state_only", "verdict": HOSTILE,
                          "checks": [{"observed": HOSTILE}]}],
              "sources": [{"receipts": [{"query": HOSTILE}]}]}
    usage = {"label": HOSTILE, "receipts": 1, "states": {"usd_micros": HOSTILE},
             "usd_micros": {"total": None, "known_subtotal": HOSTILE, "unknown": 1}}
    return {"status": "ready", "signed_in": {"name": HOSTILE, "owner": False},
            "scope": {"agent": HOSTILE, "workspace": HOSTILE},
            "quality": [{"schedule_id": HOSTILE, "task_class": HOSTILE, "scheduled": 1,
                         "observed": 0, "missing": 1, "succeeded": 0, "failed": 0, "unknown": 0,
                         "rates": {"success": None}}],
            "usage": usage, "actions": [action],
            "proposals": {"available": False, "reason": HOSTILE}}


def test_every_value_on_the_screen_is_escaped() -> None:
    page = dashboard_page(hostile_view(), csrf=HOSTILE, action_url=HOSTILE, signout_url=HOSTILE)
    assert "<script" not in page and "alert(1)" in page
    assert "&lt;script&gt;" in page


def test_outcome_and_unconfigured_pages_are_escaped_too() -> None:
    refused = action_outcome_page({"refusal": {"code": HOSTILE, "detail": HOSTILE, "fix": HOSTILE}},
                                  HOSTILE)
    done = action_outcome_page({"action": HOSTILE, "target": HOSTILE, "answer": {"state": HOSTILE}},
                               "/dashboard")
    unconfigured = unconfigured_page({"missing": [HOSTILE], "fix": HOSTILE})
    for page in (refused, done, unconfigured):
        assert "<script" not in page and "&lt;script&gt;" in page


def pending_proposal() -> dict[str, Any]:
    return {"proposal_id": "prop-" + "b" * 32, "title": "t", "proposal_kind": "rule",
            "review_id": "REV-1", "status": "pending_review", "review_open": True,
            "candidate": {}, "compiled": {}, "sources": [],
            "lifecycle": {"state": None, "controls": ["revoke"], "rollback_to": [],
                          "qualifications": [],
                          "activation": {"available": False, "qualifications": [], "reason": "r"}}}


def test_a_pending_proposal_has_its_review_controls_each_with_the_csrf_value() -> None:
    page = proposals_html({"available": True, "items": [pending_proposal()]}, "c5rf", "/dashboard/action")
    assert page.count("<form") == 3 and page.count("name='csrf' value='c5rf'") == 3
    assert "id='approve-prop-" in page and "id='reject-prop-" in page


def test_a_read_only_endpoint_renders_no_control() -> None:
    page = proposals_html({"available": True, "items": [pending_proposal()]}, "c5rf",
                          "/dashboard/action", read_only=True)
    assert "<form" not in page and "serves reads only" in page
