"""The doctor's verdict on one token."""

from __future__ import annotations

from revetly_core.auth import token_report
from revetly_core.config import parse_config

CONFIG = parse_config({"instance": {"name": "solo"}, "auth": {"verifier": "jwt",
                                                              "issuer": "https://auth/"}})


def test_a_refused_token_carries_its_reason_only() -> None:
    report = token_report(CONFIG, "https://r/mcp", None, "the token carries no audience")
    assert report == {"resource": "https://r/mcp", "issuer": "https://auth/",
                      "token": {"verified": False, "reason": "the token carries no audience"}}


def test_without_grants_every_project_answers() -> None:
    report = token_report(CONFIG, "https://r/mcp", {"sub": "u", "iss": "https://auth/",
                                                    "scope": "a b"}, None)
    assert report["projects"] == ["solo"] and report["token"]["scopes"] == ["a", "b"]
    assert report["token"]["principal"]["source"] == "token:https://auth/"
