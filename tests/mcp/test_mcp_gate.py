"""The review gate as the client sees it, through the SDK's client: paginated elicitation
answered inside the call (both eras), the review app, parked drafts and app-only refusals."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.types import ElicitRequestFormParams, ElicitResult
from revetly_mcp.server import build_server

from revetly_core import Engine

pytestmark = pytest.mark.anyio

APP = advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})
REVIEWER = {"resolve_review", "review_state", "withdraw_review"}
DRAFT = {"title": "Export credit notes", "description": "Credit notes follow invoices. " * 200,
         "acceptance_criteria": ["A CSV holds one row per credit note", "Totals match"]}


def _server(root: Path, project: str | None = None) -> Any:
    engine = Engine.open(root)
    engine.capture_mode = "none"
    return build_server(engine, project)


class Reviewer:
    """An elicitation callback that pages through a review and answers its decision page."""

    def __init__(self, answer: dict[str, Any] | None = None, action: str = "accept") -> None:
        self.answer = answer if answer is not None else {"approve": True, "reason": "reads well"}
        self.action = action
        self.pages: list[ElicitRequestFormParams] = []

    async def __call__(self, ctx: Any, params: Any) -> ElicitResult:
        self.pages.append(params)
        if self.action != "accept":
            return ElicitResult(action=self.action)  # type: ignore[arg-type]
        if "approve" in params.requested_schema["properties"]:
            return ElicitResult(action="accept", content=self.answer)
        return ElicitResult(action="accept", content={"proceed": True})


def _state(root: Path, review_id: str) -> dict[str, Any]:
    return Engine.open(root).review_state(review_id)


async def test_elicitation_pages_through_the_draft_and_approves_it(writable: Path) -> None:
    reviewer = Reviewer()
    async with Client(_server(writable), mode="legacy", elicitation_callback=reviewer) as client:
        result = await client.call_tool("submit_draft", DRAFT)
    payload = result.structured_content or {}
    assert payload["status"] == "applied" and payload["wrote"] is True
    assert payload["decided_via"] == "mcp-elicitation"
    assert len(reviewer.pages) > 2
    for page in reviewer.pages[:-1]:
        header, nav = page.message.split("\n")
        assert header.startswith(f"Review {payload['review_id']}") and nav.startswith("Page ")
        field = page.requested_schema["properties"]["proceed"]
        assert 0 < len(field["description"]) <= 2000
    decision = reviewer.pages[-1].requested_schema["properties"]
    assert set(decision) == {"approve", "reason"}
    assert (writable / payload["path"]).exists()


async def test_a_dismissed_dialog_leaves_the_review_pending(writable: Path) -> None:
    reviewer = Reviewer(action="decline")
    async with Client(_server(writable), mode="legacy", elicitation_callback=reviewer) as client:
        result = await client.call_tool("submit_draft", DRAFT)
        pending = await client.call_tool("list_reviews", {})
    payload = result.structured_content or {}
    assert payload["status"] == "pending" and payload["dialog"] == "dismissed"
    assert payload["wrote"] is False
    assert _state(writable, payload["review_id"])["status"] == "pending"
    listed = json.dumps(pending.structured_content)
    assert payload["review_id"] in listed


async def test_a_rejection_is_recorded_with_its_reason(writable: Path) -> None:
    reviewer = Reviewer({"approve": False, "reason": "out of scope"})
    async with Client(_server(writable), mode="legacy", elicitation_callback=reviewer) as client:
        result = await client.call_tool("submit_draft", DRAFT)
    payload = result.structured_content or {}
    assert payload["wrote"] is False and payload["reason"] == "out of scope"
    assert _state(writable, payload["review_id"])["status"] != "pending"


async def test_elicitation_without_an_app_is_not_offered_the_reviewer_tools(writable: Path) -> None:
    reviewer = Reviewer(action="cancel")
    async with Client(_server(writable), mode="legacy", elicitation_callback=reviewer) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        submitted = await client.call_tool("submit_draft", DRAFT)
        review_id = (submitted.structured_content or {})["review_id"]
        refused = await client.call_tool("resolve_review",
                                         {"review_id": review_id, "decision": "approve"})
    assert not names & REVIEWER
    answer = refused.structured_content or {}
    assert answer["status"] == "app-only" and answer["wrote"] is False
    assert _state(writable, review_id)["status"] == "pending"


async def test_the_app_gate_returns_awaiting_review_and_the_app_resolves(writable: Path) -> None:
    async with Client(_server(writable), mode="legacy", extensions=[APP]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        submitted = (await client.call_tool("submit_draft", DRAFT)).structured_content or {}
        review = await client.read_resource(f"revetly://review/{submitted['review_id']}")
        state = await client.call_tool("review_state", {"review_id": submitted["review_id"]})
        resolved = await client.call_tool("resolve_review", {
            "review_id": submitted["review_id"], "decision": "approve", "reason": "ok"})
    assert set(tools) >= REVIEWER
    for name in REVIEWER:
        assert tools[name].meta is not None and tools[name].meta["ui"]["visibility"] == ["app"]
    assert tools["submit_draft"].meta["ui"]["resourceUri"] == "ui://revetly/review.html"  # type: ignore[index]
    assert submitted["status"] == "awaiting-review" and submitted["resolve_tool"] == "resolve_review"
    draft = json.loads(review.contents[0].text)["draft"]  # type: ignore[union-attr]
    assert draft["acceptance_criteria"] == DRAFT["acceptance_criteria"]
    assert (state.structured_content or {})["status"] == "pending"
    answer = resolved.structured_content or {}
    assert answer["decided_via"] == "mcp-app" and answer["wrote"] is True


async def test_the_review_app_is_self_contained_html(writable: Path) -> None:
    async with Client(_server(writable), mode="legacy", extensions=[APP]) as client:
        app = await client.read_resource("ui://revetly/review.html")
    content = app.contents[0]
    assert content.mime_type == "text/html;profile=mcp-app"
    html = content.text  # type: ignore[union-attr]
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html)
    assert "fetch(" not in html and "XMLHttpRequest" not in html
    for tool in ("resolve_review", "withdraw_review", "review_state"):
        assert tool in html


async def test_a_client_declaring_neither_gets_a_parked_draft(writable: Path) -> None:
    async with Client(_server(writable), mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        parked = (await client.call_tool("submit_draft", DRAFT)).structured_content or {}
    assert names >= REVIEWER  # nothing is withheld from a client that declared neither
    assert parked["status"] == "parked" and parked["wrote"] is False
    assert parked["review_id"].startswith("REV-") and "needs" in parked


async def test_a_raised_review_offers_withdraw_on_its_decision_page(writable: Path) -> None:
    async with Client(_server(writable), mode="legacy") as client:
        parked = (await client.call_tool("submit_draft", DRAFT)).structured_content or {}
    reviewer = Reviewer({"approve": False, "reason": "nobody owns it", "withdraw": True})
    async with Client(_server(writable), mode="legacy", elicitation_callback=reviewer) as client:
        answer = (await client.call_tool("raise_review", {"review_id": parked["review_id"]})
                  ).structured_content or {}
    assert "withdraw" in reviewer.pages[-1].requested_schema["properties"]
    assert answer["status"] == "withdrawn" and answer["wrote"] is False


async def test_the_modern_era_asks_page_by_page_inside_one_call(writable: Path) -> None:
    reviewer = Reviewer()
    async with Client(_server(writable), elicitation_callback=reviewer,
                      input_required_max_rounds=50) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("submit_draft", DRAFT)
    payload = result.structured_content or {}
    assert payload["status"] == "applied" and payload["decided_via"] == "mcp-elicitation"
    assert len(reviewer.pages) > 2
    assert len(Engine.open(writable).list_reviews("all")["reviews"]) == 1


async def test_a_bound_write_naming_another_project_wrote_nothing(duo: Path) -> None:
    async with Client(_server(duo, "beta"), mode="legacy") as client:
        refused = await client.call_tool("set_status", {
            "artifact_id": "STORY-002", "status": "done", "project": "alpha"})
    body = (refused.structured_content or {})["refusal"]
    assert body["code"] == "bound-to-another-project" and body["wrote"] is False


def _stdio(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "revetly_mcp", "--instance", str(root)])


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_elicitation_approves_over_a_spawned_server(writable: Path, mode: str) -> None:
    reviewer = Reviewer()
    async with Client(_stdio(writable), mode=mode, elicitation_callback=reviewer,  # type: ignore[arg-type]
                      input_required_max_rounds=50) as client:
        result = await client.call_tool("submit_draft", DRAFT)
    payload = result.structured_content or {}
    assert payload["status"] == "applied" and payload["wrote"] is True
    assert len(reviewer.pages) > 2


async def test_a_declined_dialog_over_a_spawned_server_stays_pending(writable: Path) -> None:
    reviewer = Reviewer(action="decline")
    async with Client(_stdio(writable), mode="legacy", elicitation_callback=reviewer) as client:
        result = await client.call_tool("submit_draft", DRAFT)
    payload = result.structured_content or {}
    assert payload["status"] == "pending" and payload["dialog"] == "dismissed"


async def test_a_bound_connection_raises_only_its_own_projects_reviews(duo: Path) -> None:
    async with Client(_server(duo, "alpha"), mode="legacy") as client:
        parked = (await client.call_tool("submit_draft", DRAFT)).structured_content or {}
    assert parked["project"] == "alpha" and parked["status"] == "parked"
    async with Client(_server(duo, "beta"), mode="legacy") as client:
        refused = await client.call_tool("raise_review", {"review_id": parked["review_id"]})
        listed = await client.call_tool("list_reviews", {})
    body = (refused.structured_content or {})["refusal"]
    assert body["code"] == "bound-to-another-project" and body["bound_to"] == "beta"
    assert parked["review_id"] not in json.dumps(listed.structured_content)
