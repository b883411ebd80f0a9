"""An application serving its FeedbackDashboard on the engine's HTTP endpoint (served tests).

argv: INSTANCE HOMES WORK PORT [read-only]. It opens the vault HOMES/vault (owner credential in
WORK/owner.token, the dashboard's read credential in WORK/reader.token, scope desk/support),
binds the people the test issuer signs in (sub "dana": the owner; sub "bo": a viewer; anyone
else: no dashboard identity), opens canonical memory per request from INSTANCE, and runs
`run_http(..., dashboard=...)`, as docs/governed.md describes, until SIGTERM (read-only: the
endpoint serves reads only).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from revetly_core.governed.principals import read_credential_file
from revetly_mcp.serve_http import run_http

from revetly_core import (
    DashboardIdentity,
    Engine,
    EvidenceService,
    FeedbackDashboard,
    FeedbackService,
    Scope,
)

SCOPE = Scope("desk", "support")
OWNERS = {"dana"}
VIEWERS = {"bo"}


def main(argv: list[str]) -> int:
    instance, homes, work, port, *mode = argv
    evidence = EvidenceService.open(homes, "vault")
    session = evidence.principals.session(read_credential_file(Path(work) / "reader.token"), SCOPE)

    def binding(claims: Mapping[str, Any]) -> DashboardIdentity | None:
        sub = str(claims.get("sub"))
        if sub not in OWNERS | VIEWERS:
            return None
        return DashboardIdentity(str(claims.get("name") or sub), session, owner=sub in OWNERS)

    dashboard = FeedbackDashboard(FeedbackService(evidence),
                                  owner_token=read_credential_file(Path(work) / "owner.token"),
                                  binding=binding, memory_factory=lambda: Engine.open(instance),
                                  runtime_versions={"app": "1.0"})
    try:
        return run_http(instance, None, port=int(port), dashboard=dashboard,
                        read_only=mode == ["read-only"])
    finally:
        evidence.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
