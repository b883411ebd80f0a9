"""An application's own entry point with a guarded dispatcher, as docs/governed.md describes it.

argv: ROOT VAULT_ID CREDENTIAL_FILE AGENT WORKSPACE JOURNAL MODE [KEY TEXT] (the handler's
deadline in seconds comes from GUARDED_TIMEOUT, default 30). It opens the home,
registers the owner's send_notice tool (owner credential from ROOT/owner.token) with a backend
that appends each effect to the JSON-lines JOURNAL, then either serves the governed MCP server
on stdio (MODE serve) or runs one guarded_execute with KEY (MODE execute) and prints its JSON.
Tests arm REVETLY_CRASH_AT to kill it at one of the dispatcher's crash points.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from revetly_core.governed.dispatcher import GuardedDispatcher
from revetly_core.governed.guarded_tools import ExecutionContext, GuardedTool
from revetly_core.governed.local import open_local
from revetly_core.governed.principals import read_credential_file

from revetly_core import Refusal
from revetly_mcp import GovernedMCPServer

SEND = GuardedTool("send_notice", "1.0.0", "Send a notice to a recipient.", {
    "type": "object", "additionalProperties": False, "required": ["to", "text"],
    "properties": {"to": {"type": "string", "minLength": 1}, "text": {"type": "string"}}})


class Backend:
    """Each effect is one appended, fsynced line of the journal file; 'hang' never acknowledges."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal

    def invoke(self, arguments: dict[str, Any], *, context: ExecutionContext) -> dict[str, Any]:
        with self.journal.open("a", encoding="utf-8") as handle:
            line = {"invocation_id": context.execution_id, "text": arguments["text"]}
            handle.write(json.dumps(line) + "\n")
            handle.flush()
        if arguments["text"] == "hang":
            threading.Event().wait()
        return {"sent": True}


if __name__ == "__main__":
    root, vault_id, credential_file, agent, workspace, journal, mode, *rest = sys.argv[1:]
    local = open_local(root, vault_id, credential_file, agent, workspace)
    owner = read_credential_file(Path(root) / "owner.token")
    dispatcher = GuardedDispatcher(local.feedback, timeout=float(os.environ.get("GUARDED_TIMEOUT", "30")))
    dispatcher.register(owner, local.session.scope, SEND, Backend(Path(journal)), with_context=True)
    if mode == "serve":
        GovernedMCPServer(local.feedback, local.rag, local.session, dispatcher=dispatcher).serve()
        os._exit(0)  # a hung handler's worker thread must not keep the process alive
    else:
        key, text = rest[0], rest[1]
        try:
            answer = dispatcher.execute(local.session, "send_notice", {"to": "ops", "text": text},
                                        idempotency_key=key)
        except Refusal as refusal:
            answer = refusal.payload()
        print(json.dumps(answer), flush=True)
        os._exit(0)  # a hung handler's worker thread must not keep the process alive
