"""The feedback dashboard in a real headless browser: Debian's chromium signs the owner in at the
test issuer (code + PKCE through the real redirects), reads the real counts and a proposal,
approves it and suspends the active rule; the vault says so afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page

from tests.mcp.http.browser import browser_context, sign_in
from tests.mcp.http.dashboard_served import served_dashboard
from tests.mcp.http.served_handles import IssuerHandle

pytestmark = pytest.mark.anyio


async def press(page: Page, button: str) -> str:
    """Press one control; the state the outcome page reports."""
    async with page.expect_navigation():
        await page.click(f"#{button}")
    assert (await page.inner_text("#outcome")) != "refused", await page.content()
    return (await page.inner_text("#state")).strip()


async def test_the_owner_signs_in_approves_a_proposal_and_suspends_a_rule(
        tmp_path: Path, issuer: IssuerHandle) -> None:
    with served_dashboard(tmp_path, issuer) as app:
        world = app.world
        async with browser_context() as context:
            page = await context.new_page()
            await sign_in(page, app.url, "dana", ready="#signed-in, #outcome")
            assert (await page.inner_text("#signed-in")) == "Dana"
            row = page.locator("#quality-weekly")
            assert (await row.locator(".scheduled").inner_text()) == "3"
            assert (await row.locator(".observed").inner_text()) == "2"
            assert (await row.locator(".missing").inner_text()) == "1"
            assert (await row.locator(".succeeded").inner_text()) == "1"
            assert (await page.locator("#usage-usd_micros .state").inner_text()) == "partial"
            action = page.locator(f"#action-{world.execution_id}")
            assert "refund of 620 EUR" in await action.locator(".arguments").inner_text()
            proposal = page.locator(f"#proposal-{world.pending_id}")
            assert (await proposal.locator(".review-status").inner_text()) == "pending_review"
            assert "Large refunds need approval" in await proposal.locator("h3").inner_text()
            assert "diagnostic" in await page.locator(
                f"#proposal-{world.diagnostic_id} .activation-unavailable").inner_text()

            assert await press(page, f"approve-{world.pending_id}") == "approved"
            async with page.expect_navigation():
                await page.click("#back")
            assert (await page.locator(f"#proposal-{world.pending_id} .review-status")
                    .inner_text()) == "approved"
            assert await press(page, f"suspend-{world.active_id}") == "suspended"
            async with page.expect_navigation():
                await page.click("#back")
            assert (await page.locator(f"#proposal-{world.active_id} .lifecycle-state")
                    .inner_text()) == "suspended"

        decision = app.decision(world.pending_id)
        assert decision is not None and decision["decision"] == "approve"
        assert decision["reviewer"] == "Dana"
        assert app.state(world.active_id) == "suspended"
