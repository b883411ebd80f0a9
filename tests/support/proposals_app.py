"""An application's own entry point for proposals and the rule lifecycle (crash-injection tests).

argv: INSTANCE HOMES VAULT_ID WORK OP [ARGS...]. It opens the home (owner credential in
WORK/owner.token, application credential in WORK/app.token, scope desk/support) and the
instance's Engine as canonical memory, runs one operation and prints its JSON answer:

- ``propose KEY``: propose the refund rule under KEY;
- ``review PROPOSAL``: the owner approves it;
- ``qualify PROPOSAL KEY EXPIRES``: qualify it, to expire at the ISO instant EXPIRES, with a
  trusted test qualifier that appends one line to WORK/qualifier.log each time it runs;
- ``activate PROPOSAL QUALIFICATION``: activate it;
- ``serve``: serve the governed MCP server on stdio with the proposals bound.

Tests arm REVETLY_CRASH_AT to kill it at one of the proposal or lifecycle crash points.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from revetly_core.governed.principals import read_credential_file

from revetly_core import (
    Engine,
    EvidenceService,
    FeedbackService,
    ProposalService,
    RagService,
    Refusal,
    RuleLifecycle,
    Scope,
)
from revetly_mcp import GovernedMCPServer

SCOPE = Scope("desk", "support")
RULE = {"title": "Large refunds need approval", "tool": "issue_refund",
        "applies_when": [{"kind": "argument_equals", "argument": "tier", "value": "large"}],
        "requires": [{"kind": "approval_required"}],
        "sources": [{"kind": "memory", "artifact_id": "DEC-0001"}]}


class LoggingQualifier:
    """Trusted for the test only: it accepts, and logs every run (not qualification evidence)."""

    name = "test-trusted"
    kind = "trusted"

    def __init__(self, log: Path) -> None:
        self.log = log

    def qualify(self, proposal: dict[str, Any], runtime_versions: dict[str, str]) -> dict[str, Any]:
        with self.log.open("a", encoding="utf-8") as handle:
            handle.write(proposal["proposal_id"] + "\n")
        return {"verdict": "accepted", "evidence": {"fixture": True}}


def main(argv: list[str]) -> int:
    instance, homes, vault_id, work, op, *args = argv
    evidence = EvidenceService.open(homes, vault_id)
    work_dir = Path(work)
    owner = read_credential_file(work_dir / "owner.token")
    session = evidence.principals.session(read_credential_file(work_dir / "app.token"), SCOPE)
    proposals = ProposalService(FeedbackService(evidence), Engine.open(instance))
    lifecycle = RuleLifecycle(proposals)
    if op == "serve":
        rag = RagService(proposals.feedback)
        GovernedMCPServer(proposals.feedback, rag, session, proposals=proposals).serve()
        rag.close()
        evidence.close()
        return 0
    try:
        if op == "propose":
            answer = proposals.propose_rule(session, RULE, args[0])
        elif op == "review":
            answer = proposals.review(owner, SCOPE, args[0], "approve", reviewer="Dana")
        elif op == "qualify":
            answer = lifecycle.qualify(owner, SCOPE, args[0], LoggingQualifier(work_dir / "qualifier.log"),
                                       idempotency_key=args[1],
                                       expires_at=datetime.fromisoformat(args[2]))
        else:
            answer = lifecycle.activate(owner, SCOPE, args[0], args[1])
    except Refusal as refusal:
        answer = refusal.payload()
    print(json.dumps(answer))
    evidence.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
