"""The feedback dashboard in one file: what an application binds, what the screen shows, an owner action.

    python examples/governed_dashboard.py build/dashboard-demo                 # the tour, in-process
    python examples/governed_dashboard.py build/dashboard-demo --serve \\
        --issuer https://login.example --owner dana --port 8765                # serve /dashboard

The application is a refund desk (as in governed_proposals.py). Owner set-up (deployment code,
never in a model's reach) makes the instance with its policy note, the vault home, a credential
for the desk's model (propose, report) and one for the dashboard itself (read), freezes a
schedule and records provider usage. The model reports two outcomes and proposes a rule.

The dashboard is then built the way an application builds it: the owner credential stays in
setup, the binding maps a signed-in person (their issuer claims) to a DashboardIdentity, and
canonical memory is opened per request. The tour prints what the screen shows the owner and a
viewer, then applies the owner's approval exactly as the page's form would (a viewer's is
refused). With --serve it serves the screen at http://127.0.0.1:PORT/dashboard on the engine's
HTTP endpoint, signing people in at --issuer (register the public client `revetly-review` and
the redirect URI http://127.0.0.1:PORT/dashboard/callback there); --owner names the issuer
subjects bound as the owner, every other signed-in person is a viewer.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from revetly_core import (
    DashboardIdentity,
    Engine,
    EvidenceService,
    FeedbackDashboard,
    FeedbackService,
    ProposalService,
    Scope,
    Session,
    UsageLedger,
)

SCOPE = Scope(agent="assistant", workspace="refunds")
NOTE = ("---\nid: DEC-0001\ntitle: Refund approvals\ntype: decision\nstatus: accepted\n---\n"
        "Refunds above 500 EUR need a stated reason and a second approver from finance.\n")
RULE = {
    "title": "Large refunds need a reason and approval",
    "tool": "issue_refund",
    "applies_when": [{"kind": "argument_equals", "argument": "tier", "value": "large"}],
    "requires": [{"kind": "argument_present", "argument": "reason"}, {"kind": "approval_required"}],
    "sources": [{"kind": "memory", "artifact_id": "DEC-0001"}],
}


def owner_setup(folder: Path) -> tuple[Path, str, str, str]:
    """Instance, vault, the model's credential and the dashboard's read credential."""
    instance = folder / "policy"
    Engine.init(instance)
    (instance / "notes" / "DEC-0001.md").write_text(NOTE, encoding="utf-8")
    Engine.open(instance).sync()
    evidence, owner = EvidenceService.create(folder / "homes", "refunds")
    until = datetime.now(UTC) + timedelta(days=30)
    model, model_token = evidence.principals.issue_credential(owner, "refund desk")
    evidence.principals.grant(owner, model, ["propose", "report"], SCOPE, until)
    reader, reader_token = evidence.principals.issue_credential(owner, "dashboard")
    evidence.principals.grant(owner, reader, ["read"], SCOPE, until)
    feedback = FeedbackService(evidence)
    feedback.freeze_schedule(owner, SCOPE, "weekly", ["refund-1", "refund-2", "refund-3"])
    UsageLedger(feedback).record_usage(owner, SCOPE, {"provider_receipt": "resp-1", "run_id": "run-1",
                                                      "usd_micros": None, "input_tokens": 1800,
                                                      "output_tokens": 240, "model_calls": 2})
    evidence.close()
    return instance, owner, model_token, reader_token


def the_model_works(folder: Path, instance: Path, model_token: str) -> str:
    """Two outcome reports and a rule proposal, as the model's tools would make them."""
    evidence = EvidenceService.open(folder / "homes", "refunds")
    feedback = FeedbackService(evidence)
    session = evidence.principals.session(model_token, SCOPE)
    feedback.report_outcome(session, {"run_id": "run-1", "task_id": "refund-1", "status": "succeeded",
                                      "schedule_id": "weekly"}, "report-1")
    feedback.report_outcome(session, {"run_id": "run-2", "task_id": "refund-2", "status": "failed",
                                      "schedule_id": "weekly"}, "report-2")
    receipt = ProposalService(feedback, Engine.open(instance)).propose_rule(session, RULE, "proposal-1")
    evidence.close()
    return str(receipt["proposal_id"])


def build_dashboard(evidence: EvidenceService, instance: Path, owner: str, reader: Session,
                    owners: set[str]) -> FeedbackDashboard:
    """The application's FeedbackDashboard: its owner credential, binding and memory factory."""

    def binding(claims: Mapping[str, Any]) -> DashboardIdentity | None:
        sub = claims.get("sub")
        if not isinstance(sub, str):
            return None
        return DashboardIdentity(str(claims.get("name") or sub), reader, owner=sub in owners)

    return FeedbackDashboard(FeedbackService(evidence), owner_token=owner, binding=binding,
                             memory_factory=lambda: Engine.open(instance))


def tour(dashboard: FeedbackDashboard, proposal_id: str) -> dict[str, Any]:
    owner = dashboard.identify({"sub": "dana", "name": "Dana"})
    viewer = dashboard.identify({"sub": "bo", "name": "Bo"})
    assert owner is not None and viewer is not None
    screen = dashboard.view(owner)
    [weekly] = screen["quality"]
    [proposal] = screen["proposals"]["items"]
    refused = dashboard.act(viewer, {"action": "approve", "target": proposal_id})
    approved = dashboard.act(owner, {"action": "approve", "target": proposal_id, "reason": "per DEC-0001"})
    after = dashboard.view(owner)["proposals"]["items"][0]
    return {"counts": {k: weekly[k] for k in ("scheduled", "observed", "missing", "succeeded", "failed")},
            "usage_states": screen["usage"]["states"],
            "proposal": {"status": proposal["status"], "review_open": proposal["review_open"]},
            "viewer_sees_proposals": dashboard.view(viewer)["proposals"]["available"],
            "viewer_approval": refused["refusal"]["code"],
            "owner_approval": approved["answer"]["status"],
            "after": {"status": after["status"], "controls": after["lifecycle"]["controls"],
                      "activation": after["lifecycle"]["activation"]["reason"]}}


def serve(instance: Path, dashboard: FeedbackDashboard, issuer: str, port: int) -> int:
    """Declare the issuer on the instance and serve the endpoint with /dashboard."""
    from revetly_mcp.serve_http import run_http

    config = instance / "revetly.toml"
    if "[auth]" not in config.read_text(encoding="utf-8"):
        config.write_text(config.read_text(encoding="utf-8")
                          + f'\n[auth]\nverifier = "jwt"\nissuer = "{issuer}"\n', encoding="utf-8")
    return run_http(str(instance), None, port=port, dashboard=dashboard)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--issuer", default="http://127.0.0.1:9000")
    parser.add_argument("--owner", action="append", default=[])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    instance, owner, model_token, reader_token = owner_setup(args.folder)
    proposal_id = the_model_works(args.folder, instance, model_token)
    evidence = EvidenceService.open(args.folder / "homes", "refunds")
    try:
        reader = evidence.principals.session(reader_token, SCOPE)
        if args.serve:
            dashboard = build_dashboard(evidence, instance, owner, reader, set(args.owner))
            return serve(instance, dashboard, args.issuer, args.port)
        dashboard = build_dashboard(evidence, instance, owner, reader, {"dana"})
        print(json.dumps(tour(dashboard, proposal_id), indent=2))
        return 0
    finally:
        evidence.close()


if __name__ == "__main__":
    raise SystemExit(main())
