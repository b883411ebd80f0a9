"""An application's own entry point for the governed server, as docs/governed.md describes it.

argv: ROOT VAULT_ID CREDENTIAL_FILE AGENT WORKSPACE [RESULT_BUDGET]. It opens the existing home,
re-attaches the built-in sqlite-vault sources, authenticates the credential and serves stdio.
"""

from __future__ import annotations

import sys

from revetly_core.governed.budget import DEFAULT_RESULT_BUDGET
from revetly_core.governed.local import open_local
from revetly_mcp.governed_server import GovernedMCPServer

if __name__ == "__main__":
    root, vault_id, credential_file, agent, workspace, *rest = sys.argv[1:]
    local = open_local(root, vault_id, credential_file, agent, workspace)
    budget = int(rest[0]) if rest else DEFAULT_RESULT_BUDGET
    GovernedMCPServer(local.feedback, local.rag, local.session, result_budget=budget).serve()
