"""[auth.grants] over a real endpoint: the token's claim decides which projects answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp.http.http_clients import http_client
from tests.mcp.http.served_handles import IssuerHandle, ServeFactory, auth_block

pytestmark = pytest.mark.anyio

GRANTS = '\n[auth.grants]\nclaim = "groups"\n[auth.grants.values]\n"team-b" = ["beta"]\n' \
         '"leads" = ["alpha", "beta"]\n'


async def test_a_grant_decides_which_projects_answer(
        duo: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = serve(duo, auth_block(issuer) + GRANTS)
    async with http_client(served.url, issuer.token("bea", served.url, groups="team-b")) as c:
        refused = (await c.call_tool("list_backlog", {"project": "alpha"})).structured_content
        assert refused is not None and refused["refusal"]["code"] == "outside-grant"
        listed = (await c.call_tool("list_backlog", {})).structured_content or {}
        assert [r["artifact_id"] for r in listed["items"]] == ["STORY-002"]
    async with http_client(served.url, issuer.token("lee", served.url, groups="leads")) as c:
        both = (await c.call_tool("list_backlog", {"project": "alpha"})).structured_content or {}
        assert [r["artifact_id"] for r in both["items"]] == ["STORY-001"]


async def test_a_token_whose_grant_reaches_nothing_is_told_so_under_grant(
        duo: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = serve(duo, auth_block(issuer) + GRANTS)
    async with http_client(served.url, issuer.token("ned", served.url, groups="interns")) as c:
        answer = (await c.call_tool("search_context", {"query": "invoices"})).structured_content
    assert answer is not None
    assert answer["grant"] == {"claim": "groups", "values": ["interns"], "reaches": "nothing",
                               "why": "no [auth.grants] entry here names these values"}
    assert answer["refusal"]["code"] == "outside-grant"


async def test_a_grant_of_several_is_narrowed_by_the_bound_project(
        duo: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = serve(duo, auth_block(issuer) + GRANTS, "--project", "beta")
    async with http_client(served.url, issuer.token("lee", served.url, groups="leads")) as c:
        listed = (await c.call_tool("list_backlog", {})).structured_content or {}
        assert [r["artifact_id"] for r in listed["items"]] == ["STORY-002"]
        other = (await c.call_tool("list_backlog", {"project": "alpha"})).structured_content
        assert other is not None
        assert other["refusal"]["code"] == "bound-to-another-project"


async def test_a_grant_of_several_answers_a_read_spanning_them_and_refuses_one_outside(
        duo: Path, serve: ServeFactory, issuer: IssuerHandle) -> None:
    served = serve(duo, auth_block(issuer) + GRANTS)
    async with http_client(served.url, issuer.token("lee", served.url, groups="leads")) as c:
        both = (await c.call_tool("list_backlog", {"project": "alpha,beta"})).structured_content
    assert both is not None and both["projects"] == ["alpha", "beta"]
    assert sorted(r["artifact_id"] for r in both["items"]) == ["STORY-001", "STORY-002"]
    async with http_client(served.url, issuer.token("bea", served.url, groups="team-b")) as c:
        refused = (await c.call_tool("search_context", {"query": "invoices",
                                                        "project": "beta,alpha"})).structured_content
    assert refused is not None and refused["refusal"]["code"] == "outside-grant"
    assert refused["refusal"]["project"] == "alpha"
