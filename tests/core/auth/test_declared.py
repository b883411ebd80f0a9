"""The revetly.declared line."""

from __future__ import annotations

from revetly_core.auth import DeclaredCounter, declared_line
from revetly_core.writes.gate import ClientDeclaration

APP = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}


def test_the_line_names_client_protocol_elicitation_app_gate_and_count() -> None:
    decl = ClientDeclaration.from_initialize({
        "protocolVersion": "2025-11-25", "clientInfo": {"name": "openai-mcp", "version": "1.0.0"},
        "capabilities": {"extensions": APP}})
    assert declared_line(decl, 3) == (
        "client declared: openai-mcp 1.0.0 | protocol=2025-11-25 | elicitation=False | "
        "io.modelcontextprotocol/ui=True (mimeTypes=['text/html;profile=mcp-app']) | "
        "gate=app | sessions from this client since start=3")


def test_an_unknown_ui_extension_is_named_as_other_extensions() -> None:
    decl = ClientDeclaration.from_initialize({"capabilities": {"extensions": {"x.ui/apps": {}}}})
    line = declared_line(decl, 1)
    assert "io.modelcontextprotocol/ui=False" in line
    assert "other extensions declared=['x.ui/apps']" in line and "gate=parked" in line


def test_sessions_are_counted_per_client_name() -> None:
    counter = DeclaredCounter()
    a = ClientDeclaration(name="a")
    assert [counter.next(a), counter.next(ClientDeclaration(name="b")), counter.next(a)] == [1, 1, 2]
