"""A real headless browser for the review page: Debian's chromium driven by playwright.

No browser is downloaded: playwright launches /usr/bin/chromium (installed by .ci/run), with
flags that keep it off the network except for the pages a test opens.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import BrowserContext, Page, async_playwright

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@asynccontextmanager
async def browser_context() -> AsyncIterator[BrowserContext]:
    """A fresh browser with one empty context (its own cookies), closed after the test."""
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            context = await browser.new_context()
            yield context
        finally:
            await browser.close()


async def sign_in(page: Page, link: str, username: str,
                  ready: str = "#review-id, #outcome") -> None:
    """Open a page that signs in (a review link, the dashboard), sign in at the issuer's login
    form as `username`, and land back on it (code + PKCE through the real redirects) once
    `ready` shows."""
    await page.goto(link)
    await page.fill("#username", username)
    async with page.expect_navigation():
        await page.click("#signin")
    await page.wait_for_selector(ready)


async def decide(page: Page, button: str, reason: str = "") -> str:
    """Press approve / reject / withdraw on the review page; the outcome page's heading."""
    if reason:
        await page.fill("#reason", reason)
    async with page.expect_navigation():
        await page.click(f"#{button}")
    outcome = page.locator("#outcome")
    if not await outcome.count():
        raise AssertionError(f"no outcome on {page.url}: {await page.content()}")
    return (await outcome.inner_text()).strip()
