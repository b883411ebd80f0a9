"""The URL review gate end to end: a real endpoint and issuer on loopback, the SDK's Streamable
HTTP client declaring url-mode elicitation, and the review page driven by headless chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext

from revetly_core import Engine
from tests.mcp.http.browser import browser_context, decide, sign_in
from tests.mcp.http.served_handles import IssuerHandle, Served, ServeFactory, auth_block
from tests.mcp.http.url_gate_clients import url_gate_client

pytestmark = pytest.mark.anyio

DRAFT = {"title": "Nightly ledger export", "description": "Finance wants the ledger nightly.",
         "acceptance_criteria": ["a ledger CSV lands every night"]}
APP_ORIGIN = "http://app.example"


@pytest.fixture()
def served(writable: Path, serve: ServeFactory, issuer: IssuerHandle) -> Served:
    extra = f'[served]\nallowed_origins = ["{APP_ORIGIN}"]\n'
    return serve(writable, auth_block(issuer) + extra)


def review_of(root: Path, review_id: str) -> dict[str, Any]:
    return dict(Engine.open(root).review_state(review_id))


def story_text(root: Path) -> str | None:
    found = [p for p in (root / "backlog").rglob("*.md") if "Nightly ledger" in p.read_text()]
    return found[0].read_text() if found else None


async def test_the_gated_write_hands_a_one_time_link_by_url_elicitation(
        served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url)) as gate:
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
    assert answer["status"] == "awaiting-review" and answer["gate"] == "url"
    [(link, elicitation_id)] = gate.links
    assert link.startswith(f"{served.base}/review/{answer['review_id']}?nonce=")
    assert elicitation_id and "nonce" not in str(answer)
    assert "gate=url" in served.server.output()  # the revetly.declared line names it


async def test_sign_in_and_approve_lands_the_draft_under_the_humans_sub(
        writable: Path, served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url)) as gate:
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
        link, elicitation_id = gate.links[-1]
        async with browser_context() as context:
            page = await context.new_page()
            await sign_in(page, link, "bo")
            assert (await page.inner_text("#draft-title")) == DRAFT["title"]
            assert (await page.inner_text("#signed-in")) == "Bo"
            assert await decide(page, "approve", "looks right") == "applied"
        await gate.wait_complete(elicitation_id)
    state = review_of(writable, answer["review_id"])
    assert state["status"] == "applied" and state["decided_via"] == "url"
    assert state["decided_by"]["name"] == "bo" and state["decision_gate_enforced"] is True
    text = story_text(writable)
    assert text is not None and "by: bo" in text and "decided_via: url" in text
    assert "drafted_by: ana" in text


async def test_reject_on_the_page_keeps_the_draft_out(
        writable: Path, served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url)) as gate:
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
        link, elicitation_id = gate.links[-1]
        async with browser_context() as context:
            page = await context.new_page()
            await sign_in(page, link, "bo")
            assert await decide(page, "reject", "not this quarter") == "resolved"
        await gate.wait_complete(elicitation_id)
    state = review_of(writable, answer["review_id"])
    assert state["decision"] == "reject" and state["reason"] == "not this quarter"
    assert state["decided_by"]["name"] == "bo" and story_text(writable) is None


async def test_withdraw_on_the_page_decides_nothing(
        writable: Path, served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url)) as gate:
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
        link, elicitation_id = gate.links[-1]
        async with browser_context() as context:
            page = await context.new_page()
            await sign_in(page, link, "bo")
            assert await decide(page, "withdraw") == "withdrawn"
        await gate.wait_complete(elicitation_id)
    state = review_of(writable, answer["review_id"])
    assert state["status"] == "withdrawn" and state["wrote"] is False
    assert story_text(writable) is None


async def test_a_spent_nonce_answers_nothing(
        served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url)) as gate:
        await gate.client.call_tool("submit_draft", DRAFT)
        link, _ = gate.links[-1]
    async with browser_context() as context:
        page = await context.new_page()
        await sign_in(page, link, "bo")
        nonce = await page.get_attribute("input[name=nonce]", "value")
        csrf = await page.get_attribute("input[name=csrf]", "value")
        action = await page.get_attribute("#decision", "action")
        assert await decide(page, "reject") == "resolved"
        again = await page.goto(link)
        assert again is not None and again.status == 404
        assert (await again.text()) == "Not Found"
        replay = await context.request.post(str(action), form={
            "nonce": str(nonce), "csrf": str(csrf), "decision": "approve"},
            headers={"Origin": served.base})
        assert replay.status == 404 and (await replay.text()) == "Not Found"
        unknown = await page.goto(f"{served.base}/review/REV-ffffffffffffffff?nonce={nonce}")
        assert unknown is not None and unknown.status == 404
        assert (await unknown.text()) == "Not Found"


async def test_a_re_raise_mints_a_new_link_and_the_old_one_answers_nothing(
        writable: Path, served: Served, issuer: IssuerHandle) -> None:
    token = issuer.token("ana", served.url)
    async with url_gate_client(served.url, token) as first:
        answer = (await first.client.call_tool("submit_draft", DRAFT)).structured_content or {}
        old_link, _ = first.links[-1]
    async with url_gate_client(served.url, token) as second:
        raised = (await second.client.call_tool("raise_review", {
            "review_id": answer["review_id"]})).structured_content or {}
        assert raised["status"] == "awaiting-review" and raised["gate"] == "url"
        new_link, elicitation_id = second.links[-1]
        assert new_link != old_link
        async with browser_context() as context:
            page = await context.new_page()
            dead = await page.goto(old_link)
            assert dead is not None and dead.status == 404
            assert (await dead.text()) == "Not Found"
            await sign_in(page, new_link, "bo")
            assert await decide(page, "approve") == "applied"
        await second.wait_complete(elicitation_id)
    assert review_of(writable, answer["review_id"])["status"] == "applied"


async def test_the_drafter_signing_in_cannot_approve_its_own_draft(
        writable: Path, served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url)) as gate:
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
        link, elicitation_id = gate.links[-1]
        async with browser_context() as context:
            page = await context.new_page()
            await sign_in(page, link, "ana")
            assert await decide(page, "approve") == "refused"
            assert (await page.inner_text("#rule")) == "self-approval"
        assert review_of(writable, answer["review_id"])["status"] == "pending"
        assert story_text(writable) is None
        async with browser_context() as other:  # the link is still live for another person
            page = await other.new_page()
            await sign_in(page, link, "bo")
            assert await decide(page, "approve") == "applied"
        await gate.wait_complete(elicitation_id)


async def _signed_in_form(context: BrowserContext, link: str) -> dict[str, str]:
    page = await context.new_page()
    await sign_in(page, link, "bo")
    return {"action": str(await page.get_attribute("#decision", "action")),
            "nonce": str(await page.get_attribute("input[name=nonce]", "value")),
            "csrf": str(await page.get_attribute("input[name=csrf]", "value"))}


async def test_a_decision_from_another_origin_is_refused(
        writable: Path, served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url)) as gate:
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
        link, _ = gate.links[-1]
    async with browser_context() as context:
        form = await _signed_in_form(context, link)
        fields = {"nonce": form["nonce"], "csrf": form["csrf"], "decision": "approve"}
        for origin in (APP_ORIGIN, "http://evil.example"):
            refused = await context.request.post(form["action"], form=fields,
                                                 headers={"Origin": origin})
            assert refused.status == 403, origin
        no_origin = await context.request.post(form["action"], form=fields)
        assert no_origin.status == 403
        forged = await context.request.post(form["action"], form={**fields, "csrf": "x"},
                                            headers={"Origin": served.base})
        assert forged.status == 403
    assert review_of(writable, answer["review_id"])["status"] == "pending"
    assert story_text(writable) is None


async def test_on_2026_07_28_the_link_goes_out_in_an_input_required_round(
        writable: Path, served: Served, issuer: IssuerHandle) -> None:
    async with url_gate_client(served.url, issuer.token("ana", served.url), mode="auto") as gate:
        assert gate.client.protocol_version == "2026-07-28"
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
    assert answer["status"] == "awaiting-review" and answer["gate"] == "url"
    [(link, _)] = gate.links
    assert link.startswith(f"{served.base}/review/{answer['review_id']}?nonce=")
    async with browser_context() as context:
        page = await context.new_page()
        await sign_in(page, link, "bo")
        assert await decide(page, "approve") == "applied"
    assert review_of(writable, answer["review_id"])["status"] == "applied"


async def test_without_an_issuer_there_is_no_page_and_no_url_gate(
        writable: Path, serve: ServeFactory) -> None:
    loopback = serve(writable)
    async with url_gate_client(loopback.url, "") as gate:
        answer = (await gate.client.call_tool("submit_draft", DRAFT)).structured_content or {}
    assert gate.links == [] and gate.dialogs, answer  # the dialog, the gate stdio would give
    assert answer["status"] == "pending" and answer.get("gate") != "url"
    async with browser_context() as context:
        page = await context.new_page()
        missing = await page.goto(f"{loopback.base}/review/{answer['review_id']}?nonce=x")
        assert missing is not None and missing.status == 404
