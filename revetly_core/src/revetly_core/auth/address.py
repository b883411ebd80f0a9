"""The address rule: a loopback bind authenticates nobody; any other bind needs a verifier."""

from __future__ import annotations

import ipaddress

from revetly_core.config import AuthSection
from revetly_core.refusal import Refusal

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback_host(host: str) -> bool:
    """Whether a bind address is on loopback only (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_address_rule(host: str, auth: AuthSection) -> None:
    """Refuse to start a non-loopback bind unless [auth] declares a verifier and its issuer."""
    if is_loopback_host(host):
        return
    if auth.verifier is None:
        raise Refusal(
            "refused",
            f"the endpoint would bind {host}, which is not loopback, and [auth] declares no "
            "verifier: an endpoint reached across a network never answers anonymously",
            "declare [auth] verifier = \"jwt\" with its issuer (revetly init --auth scaffolds "
            "it), or bind 127.0.0.1",
            {"setting": "auth.verifier", "host": host},
        )
    if not auth.issuer:
        raise Refusal(
            "refused",
            f"[auth] verifier = {auth.verifier!r} names no issuer, so no token could resolve",
            "declare [auth] issuer = \"https://your-issuer/\"",
            {"setting": "auth.issuer", "host": host},
        )
