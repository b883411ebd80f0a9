"""[served] allowed_origins: which pages may call the endpoint, and what a refusal leaves behind.

A client that runs in a page sends an Origin with every request. The endpoint answers one it
does not know with 403 (`origin_refused`), and writes the refusal to the audit log so that
`revetly doctor` can name the origin: from the page's side such a refusal looks like a client
that connected and then lost its session, which nobody would otherwise trace to a setting.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from revetly_core.answers.operate import DoctorWarning, RefusedOrigin

ORIGIN_REFUSED = "refused:origin_refused"
"""The audit outcome of a request refused for its Origin."""

CORS_METHODS = ("GET", "POST", "DELETE", "OPTIONS")
"""The methods a page may use on the endpoint: the Streamable HTTP transport's three."""

CORS_REQUEST_HEADERS = ("authorization", "content-type", "accept", "mcp-session-id",
                        "mcp-protocol-version", "last-event-id")
"""The headers a page-hosted MCP client sends."""

CORS_EXPOSED_HEADERS = ("mcp-session-id", "mcp-protocol-version", "www-authenticate")
"""The response headers a page must be able to read; without mcp-session-id a page connects
and then loses its session from its second call onward."""


def normal_origin(origin: str) -> str:
    """An origin as compared: lower case, without a trailing slash."""
    return origin.strip().rstrip("/").lower()


def origin_allowed(origin: str | None, allowed: Iterable[str]) -> bool:
    """Whether a request may proceed: one with no Origin (not from a page) always may; one
    with an Origin only if it is declared or the endpoint's own."""
    if origin is None:
        return True
    return normal_origin(origin) in {normal_origin(o) for o in allowed}


def origin_refusal_body(origin: str) -> dict[str, str]:
    """The 403 body of a refused Origin, naming the setting that would admit it."""
    return {"error": "origin_refused",
            "detail": f"requests from {origin} are not accepted here",
            "fix": "add the origin to [served] allowed_origins in revetly.toml",
            "setting": "served.allowed_origins"}


def origin_refused_line(origin: str, method: str, path: str, *,
                        at: dt.datetime | None = None) -> dict[str, Any]:
    """The audit line of a refused Origin: no subject (the token is never looked at), no tool,
    the request's method and path, and the origin as sent (cut to 200 characters)."""
    when = (at or dt.datetime.now(dt.UTC)).isoformat(timespec="milliseconds")
    return {"at": when, "sub": None, "iss": None, "tool": None, "project": None,
            "outcome": ORIGIN_REFUSED, "origin": origin[:200], "request": f"{method} {path}"[:300]}


def refused_origins(lines: Iterable[Mapping[str, Any]],
                    allowed: Iterable[str]) -> list[RefusedOrigin]:
    """The origins the audit lines show refused and still undeclared: how often, first and
    last seen; the most recently refused first."""
    admitted = {normal_origin(o) for o in allowed}
    seen: dict[str, RefusedOrigin] = {}
    for line in lines:
        origin = line.get("origin")
        if line.get("outcome") != ORIGIN_REFUSED or not isinstance(origin, str):
            continue
        if normal_origin(origin) in admitted:
            continue
        at = str(line.get("at") or "")
        entry = seen.get(normal_origin(origin))
        if entry is None:
            seen[normal_origin(origin)] = {"origin": origin, "refused": 1,
                                           "first_at": at, "last_at": at}
        else:
            entry["refused"] += 1
            entry["first_at"] = min(entry["first_at"], at)
            entry["last_at"] = max(entry["last_at"], at)
    return sorted(seen.values(), key=lambda e: (e["last_at"], e["origin"]), reverse=True)


def refused_origin_warning(entry: RefusedOrigin) -> DoctorWarning:
    """Doctor's warning for one refused origin: the failure mode it causes, and the setting."""
    return {"code": "origin-refused",
            "detail": f"the endpoint refused {entry['refused']} request(s) from {entry['origin']} "
                      f"(first {entry['first_at']}, last {entry['last_at']}): a client running in "
                      "a page there is answered 403 on every call, which its user sees as a "
                      "client that connected and then lost its session",
            "fix": f"add \"{entry['origin']}\" to [served] allowed_origins in revetly.toml if that "
                   "page should reach this endpoint (then restart it); otherwise nothing to do"}
