"""The served endpoint's own addresses: the resource a token is for, and its RFC 9728 document."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from revetly_core.config import AuthSection, ServedSection

METADATA_ROOT = "/.well-known/oauth-protected-resource"


def bind_url(host: str, port: int, path: str) -> str:
    """The URL the endpoint binds (IPv6 hosts bracketed)."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}{path}"


def resource_url(served: ServedSection, host: str, port: int, path: str) -> str:
    """The resource clients ask a token for: [served] public_url, else the bound address."""
    return served.public_url or bind_url(host, port, path)


def metadata_paths(resource: str) -> tuple[str, str]:
    """Where the RFC 9728 document is served: under the resource's own path, and at the root."""
    path = urlsplit(resource).path.rstrip("/")
    return (f"{METADATA_ROOT}{path}" if path else METADATA_ROOT, METADATA_ROOT)


def metadata_url(resource: str) -> str:
    """The resource_metadata URL a 401's WWW-Authenticate names (the resource's own path)."""
    parts = urlsplit(resource)
    return f"{parts.scheme}://{parts.netloc}{metadata_paths(resource)[0]}"


def resource_metadata(resource: str, auth: AuthSection) -> dict[str, Any]:
    """The protected-resource document: the resource, its issuer, scopes, bearer in header."""
    doc: dict[str, Any] = {"resource": resource,
                           "authorization_servers": [auth.issuer] if auth.issuer else [],
                           "bearer_methods_supported": ["header"]}
    if auth.scopes:
        doc["scopes_supported"] = list(auth.scopes)
    return doc


def transport_error_body(path: str, what: str) -> dict[str, Any]:
    """The 404 body of a previous-generation address (/sse, /messages/): what is spoken here."""
    return {"error": "not_found",
            "detail": f"{what} is not served: this engine speaks MCP Streamable HTTP only",
            "fix": f"POST JSON-RPC to {path} (GET {path} opens the notification stream)",
            "transport": "streamable-http", "endpoint": path}
