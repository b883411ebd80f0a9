"""RFC 8707: the token's audience names this resource, or it is refused."""

from __future__ import annotations

import pytest
from revetly_core.auth import audience_refusal, audiences_of, same_resource

RESOURCE = "https://revetly.example.com/mcp"


def test_a_token_for_this_resource_is_admitted() -> None:
    assert audience_refusal({"aud": RESOURCE}, RESOURCE) is None
    assert audience_refusal({"aud": ["other", RESOURCE]}, RESOURCE) is None


def test_a_token_for_another_resource_is_refused_naming_both() -> None:
    reason = audience_refusal({"aud": "https://other.example/mcp"}, RESOURCE)
    assert reason is not None and "other.example" in reason and RESOURCE in reason


@pytest.mark.parametrize("claims", [{}, {"aud": []}, {"aud": 7}, {"aud": None}])
def test_a_token_with_no_audience_is_refused(claims: dict[str, object]) -> None:
    assert audience_refusal(claims, RESOURCE) is not None


@pytest.mark.parametrize("other", ["https://REVETLY.example.com/mcp", "https://revetly.example.com:443/mcp",
                                   "https://revetly.example.com/mcp/"])
def test_spelling_differences_name_the_same_resource(other: str) -> None:
    assert same_resource(other, RESOURCE)


@pytest.mark.parametrize("other", ["http://revetly.example.com/mcp", "https://revetly.example.com/mcp2",
                                   "https://revetly.example.com:8443/mcp"])
def test_a_different_scheme_path_or_port_is_another_resource(other: str) -> None:
    assert not same_resource(other, RESOURCE)


def test_audiences_reads_a_string_or_a_list() -> None:
    assert audiences_of({"aud": "a"}) == ["a"]
    assert audiences_of({"aud": ["a", 3, "b"]}) == ["a", "b"]
