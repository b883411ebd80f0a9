"""The proposal tools through a real governed MCP server subprocess and the SDK's own client."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from revetly_core.governed.home import write_private_file
from revetly_core.governed.principals import read_credential_file

from revetly_core import Engine, EvidenceService, FeedbackService, ProposalService, Scope
from tests.core.gitrepo import Instance
from tests.core.governed.proposal_world import DECISION, refund_rule, seed_instance

SUPPORT = Path(__file__).resolve().parents[1] / "support"
PROPOSALS_APP = SUPPORT / "proposals_app.py"
PLAIN_APP = SUPPORT / "governed_app.py"
SCOPE = Scope("desk", "support")


@pytest.fixture()
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A seeded instance, a home whose application credential holds propose and read."""
    monkeypatch.delenv("REVETLY_INSTANCE", raising=False)
    instance = Instance(tmp_path / "acme")
    seed_instance(instance)
    homes, work = tmp_path / "homes", tmp_path / "work"
    work.mkdir()
    evidence, owner = EvidenceService.create(homes, "vault")
    principal, token = evidence.principals.issue_credential(owner, "desk agent")
    evidence.principals.grant(owner, principal, ["propose", "read"], SCOPE,
                              datetime.now(UTC) + timedelta(days=1))
    evidence.close()
    write_private_file(work / "owner.token", owner.encode())
    write_private_file(work / "app.token", token.encode())
    return [str(instance.root), str(homes), "vault", str(work)]


async def _propose_round(argv: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=[str(PROPOSALS_APP), *argv, "serve"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        out: dict[str, Any] = {"annotations": {t.name: t.annotations for t in listed.tools},
                               "names": sorted(t.name for t in listed.tools)}
        args = {"candidate": refund_rule(), "key": "p-1"}
        out["first"] = (await session.call_tool("feedback_propose_rule", args)).structured_content
        out["retry"] = (await session.call_tool("feedback_propose_rule", args)).structured_content
        bad = await session.call_tool("feedback_propose_rule", {"candidate": {"title": "x"}, "key": "p-2"})
        out["bad"] = (bad.is_error, bad.structured_content)
        profile = {"title": "Reply style", "settings": {"language": "en"},
                   "sources": [{"kind": "memory", "artifact_id": "DEC-0002"}]}
        out["profile"] = (await session.call_tool("feedback_propose_profile",
                                                  {"candidate": profile, "key": "pp-1"})).structured_content
        return out


def test_the_sdk_client_proposes_a_rule_and_a_profile(world: list[str]) -> None:
    result = anyio.run(_propose_round, world)
    first = result["first"]
    assert first["kind"] == "proposal_receipt" and first["status"] == "pending_review"
    assert result["retry"] == first
    assert DECISION.strip() not in str(first)
    assert result["bad"][0] is True and result["bad"][1]["refusal"]["code"] == "bad-candidate"
    assert result["profile"]["proposal_kind"] == "profile"
    assert not {"review", "activate", "qualify"} & {n.split("_")[-1] for n in result["names"]}
    assert result["annotations"]["feedback_propose_rule"].destructive_hint is False
    review = Engine.open(world[0]).list_reviews()["reviews"]
    assert {r["review_id"] for r in review} == {first["review_id"], result["profile"]["review_id"]}


def test_the_owner_review_is_seen_by_a_retry_over_mcp(world: list[str]) -> None:
    first = anyio.run(_propose_round, world)["first"]
    evidence = EvidenceService.open(world[1], "vault")
    owner = read_credential_file(Path(world[3]) / "owner.token")
    ProposalService(FeedbackService(evidence), Engine.open(world[0])).review(
        owner, SCOPE, first["proposal_id"], "approve", reviewer="Dana")
    evidence.close()
    assert anyio.run(_propose_round, world)["retry"]["status"] == "approved"


async def _unbound_round(argv: list[str]) -> Any:
    params = StdioServerParameters(command=sys.executable, args=[str(PLAIN_APP), *argv])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answer = await session.call_tool("feedback_propose_rule", {"candidate": refund_rule(), "key": "p-1"})
        return answer.is_error, answer.structured_content


def test_a_server_without_a_memory_binding_answers_memory_not_bound(world: list[str]) -> None:
    argv = [world[1], "vault", str(Path(world[3]) / "app.token"), "desk", "support"]
    is_error, content = anyio.run(_unbound_round, argv)
    assert is_error is True and content["refusal"]["code"] == "memory-not-bound"
