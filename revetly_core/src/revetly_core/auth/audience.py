"""RFC 8707: a token is for this resource, or it is refused however good its signature."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit


def same_resource(a: str, b: str) -> bool:
    """Two resource URLs name the same resource (scheme and host case, default port and a
    trailing slash aside)."""
    return _canonical(a) == _canonical(b)


def _canonical(url: str) -> str:
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    return urlunsplit((scheme, host, parts.path.rstrip("/"), parts.query, ""))


def audiences_of(claims: Mapping[str, Any]) -> list[str]:
    """The token's `aud` as a list (a string is one audience; anything else none)."""
    aud = claims.get("aud")
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list):
        return [a for a in aud if isinstance(a, str)]
    return []


def audience_refusal(claims: Mapping[str, Any], resource: str) -> str | None:
    """Why a token's audience does not admit it here (None when it names this resource);
    under the jwt verifier a token carrying no audience at all is refused too."""
    audiences = audiences_of(claims)
    if not audiences:
        return "the token carries no audience; ask the issuer for a token for this resource"
    if any(same_resource(a, resource) for a in audiences):
        return None
    return f"the token was issued for {', '.join(audiences)}, not {resource}"
