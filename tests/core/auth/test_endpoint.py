"""The endpoint's resource, and where its RFC 9728 document is served."""

from __future__ import annotations

from revetly_core.auth import (
    metadata_paths,
    metadata_url,
    resource_metadata,
    resource_url,
    transport_error_body,
)
from revetly_core.config import AuthSection, ServedSection


def test_the_resource_is_the_public_url_when_declared() -> None:
    assert resource_url(ServedSection(public_url="https://r.example/mcp"), "127.0.0.1", 1, "/mcp") \
        == "https://r.example/mcp"
    assert resource_url(ServedSection(), "127.0.0.1", 8765, "/mcp") == "http://127.0.0.1:8765/mcp"
    assert resource_url(ServedSection(), "::1", 8765, "/mcp") == "http://[::1]:8765/mcp"


def test_the_document_is_at_the_resources_own_path_and_the_root() -> None:
    assert metadata_paths("https://r.example/mcp") == (
        "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource")
    assert metadata_url("https://r.example/mcp") == \
        "https://r.example/.well-known/oauth-protected-resource/mcp"


def test_the_document_names_resource_issuer_scopes_and_header_bearer() -> None:
    doc = resource_metadata("https://r.example/mcp",
                            AuthSection(issuer="https://auth.example/", scopes=["revetly.read"]))
    assert doc == {"resource": "https://r.example/mcp",
                   "authorization_servers": ["https://auth.example/"],
                   "scopes_supported": ["revetly.read"], "bearer_methods_supported": ["header"]}


def test_the_old_transport_answer_names_what_is_spoken() -> None:
    body = transport_error_body("/mcp", "HTTP+SSE (/sse)")
    assert body["transport"] == "streamable-http" and body["endpoint"] == "/mcp"
