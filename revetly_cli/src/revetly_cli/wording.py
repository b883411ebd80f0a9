"""The CLI says commands, not MCP tool names: a hint written for both shells, as a user reads it."""

from __future__ import annotations

import re

TOOL_COMMANDS: dict[str, str] = {
    "get_scope(question='binding')": "`revetly binding`",
    "get_scope(question='drift')": "`revetly drift`",
    "get_scope(question='deltas')": "`revetly deltas`",
    "search_context": "`revetly search`",
    "get_artifact": "`revetly inspect`",
    "list_backlog": "`revetly backlog`",
    "context_health": "`revetly status`",
    "get_scope": "`revetly binding` (or drift, deltas)",
    "get_authoring_context": "`revetly author`",
    "set_status": "`revetly status-set`",
    "record_conversation": "`revetly note` (or `revetly decide`)",
    "list_reviews": "`revetly review list`",
    "resolve_review": "`revetly review approve` (or reject)",
    "withdraw_review": "`revetly review withdraw`",
    "raise_review": "`revetly review show`",
}
"""Each MCP tool a core hint may name, and the command a CLI user runs instead."""

_TOOL = re.compile("|".join(re.escape(t) for t in sorted(TOOL_COMMANDS, key=len, reverse=True)))


def as_commands(text: str) -> str:
    """``text`` with every MCP tool name replaced by the command that does the same."""
    return _TOOL.sub(lambda m: TOOL_COMMANDS[m.group(0)], text)
