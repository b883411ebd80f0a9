"""What a resolved review records about how it was answered (spec §3a)."""

from __future__ import annotations

from dataclasses import dataclass

from revetly_core.refusal import Refusal

DECIDED_VIA = ("cli", "mcp-elicitation", "mcp-app", "url")
ENFORCED_VIA = ("cli", "mcp-elicitation", "url")
"""Channels where a person, not a model, is the one who can answer."""


@dataclass(frozen=True)
class Channel:
    """decided_channel, its detail, and whether the gate enforced a human answer."""

    channel: str
    detail: str
    enforced: bool


def check_decided_via(value: str) -> str:
    """decided_via is one of the four channels; anything else is refused naming them."""
    if value not in DECIDED_VIA:
        raise Refusal("bad-argument", f"decided_via {value!r} is not a channel",
                      f"use one of: {', '.join(DECIDED_VIA)}", {"field": "decided_via"})
    return value


def decision_gate_enforced(decided_via: str) -> bool:
    """True where the answer could only have come from a person (terminal, dialog, review page)."""
    return decided_via in ENFORCED_VIA


def decided_channel(decided_via: str, raised_on: str | None, answered_on: str | None) -> Channel:
    """Which connection answered, compared with the one that raised the review."""
    enforced = decision_gate_enforced(decided_via)
    if decided_via == "cli":
        return Channel("another-session", "answered at a terminal with `revetly review`, outside "
                       "every MCP connection", enforced)
    if decided_via == "url":
        return Channel("another-session", "answered over HTTP on the engine's own review page, "
                       "which no MCP session can answer", enforced)
    if raised_on is None or answered_on is None:
        return Channel("unknown", "no connection to compare with: either the raising or the "
                       "answering session was not named", enforced)
    if raised_on == answered_on:
        if decided_via == "mcp-app":
            return Channel("the-session-that-raised-it",
                           "answered on the same connection that raised the review, which is a "
                           "connection a model drives; this engine cannot tell this decision from "
                           "the model answering its own review", enforced)
        return Channel("the-session-that-raised-it",
                       "answered inside a dialog the host put to a person on the connection that "
                       "raised the review", enforced)
    return Channel("another-session", "answered on a different connection from the one that "
                   "raised the review", enforced)
