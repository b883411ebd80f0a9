"""The clients the engine was proven with (manual §6), as data: one connect line each."""

from __future__ import annotations

from dataclasses import dataclass

from revetly_core.answers.operate import Address, ConnectLine


@dataclass(frozen=True)
class ProvenClient:
    """One checked row of the client table: what was connected, when, and the gate it got."""

    client: str
    version: str
    proven: str
    protocol: str
    gate: str
    registers_itself: str | None
    """Where a self-registering client registers from (its redirect host), else None."""
    spawns_stdio: bool
    """A client that can start the server itself on this machine (no endpoint needed)."""


CLIENT_TABLE: tuple[ProvenClient, ...] = (
    ProvenClient("openai-mcp (ChatGPT)", "1.0.0", "2026-08-23", "2025-11-25",
                 "app (verified; enforcement a host convention)", "chatgpt.com", False),
    ProvenClient("Anthropic/ClaudeAI (Claude desktop app)", "1.0.0", "2026-08-24", "2025-11-25",
                 "app (verified; enforcement a host convention)", "claude.ai", False),
    ProvenClient("Visual Studio Code", "1.128.0", "2026-08-24", "2025-11-25",
                 "app (verified; enforcement a host convention)", None, True),
    ProvenClient("claude-code (terminal CLI)", "2.1.239", "2026-08-24", "2025-11-25",
                 "elicitation (enforced + verified)", None, True),
)
"""The manual's §6 table. A client not in it gets no connect line: that would be a guess."""


@dataclass(frozen=True)
class Declared:
    """What this instance declares about being reached: its stdio command, its served address."""

    stdio_command: list[str]
    public_url: str | None = None
    bind_url: str | None = None
    auth: bool = False
    registration_hosts: tuple[str, ...] = ()


def connect_line(row: ProvenClient, declared: Declared) -> ConnectLine:
    """One client's connect line: the address it uses, what it still needs declared, its gate."""
    needs: list[str] = []
    url = declared.public_url or declared.bind_url
    if row.spawns_stdio and url is None:
        address: Address = {"transport": "stdio", "command": declared.stdio_command}
    elif url is None:
        address = {"transport": "streamable-http", "url": None}
        needs.append("a served endpoint: `revetly serve --http`, with [served] public_url "
                     "naming the address this client reaches")
    else:
        address = {"transport": "streamable-http", "url": url}
    if address["transport"] == "streamable-http":
        if not declared.auth and not _loopback(url):
            needs.append("[auth] with a verifier that resolves (an endpoint off loopback does "
                         "not start without it)")
        if row.registers_itself and row.registers_itself not in declared.registration_hosts:
            needs.append(f"[auth] registration_hosts including {row.registers_itself!r}")
        if not row.registers_itself:
            needs.append("a client id: the revetly-client `revetly init --auth` scaffolds")
    return {"client": row.client, "version": row.version, "proven": row.proven,
            "address": address, "needs": needs, "gate": row.gate,
            "gate_proven_over": "streamable-http", "ready": not needs}


def _loopback(url: str | None) -> bool:
    """A URL whose host is this machine's loopback (it authenticates nobody, as stdio)."""
    from urllib.parse import urlsplit

    if url is None:
        return False
    host = urlsplit(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")
