"""The review gate as the client sees it: chosen in core, rendered here.

core's select_gate decides from what the client declared; this module only renders the choice:
the one-time link to the review page by URL elicitation (on an endpoint that serves the page,
revetly_mcp.review_routes), form elicitation dialogs paginated from core's review_pages
(answered inside the call, in the handshake era by asking the client, on 2026-07-28 by
input-required rounds), the review app resource for a host with the Apps extension, and the
parked answer otherwise.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from importlib import resources
from typing import TYPE_CHECKING, Any

from mcp.server.context import ServerRequestContext
from mcp.server.elicitation import AcceptedElicitation, render_elicitation_schema
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    InputRequiredResult,
)
from pydantic import BaseModel, Field, create_model
from revetly_core.surface import REVIEW_APP_URI
from revetly_core.writes.gate import (
    APP_MIME,
    ClientDeclaration,
    GateChoice,
    reviewer_tools_withheld,
    select_gate,
)

from revetly_mcp.schemas import tool_result
from revetly_mcp.session import can_send_requests, declared_params

if TYPE_CHECKING:
    from revetly_mcp.review_routes import ReviewPage
    from revetly_mcp.server import RevetlyServer


PAGE_KEY = "review-page"
LINK_KEY = "review-link"
LINK_STATE = "URL|"
HANDED_MAX = 1024
"""Answers held for 2026-07-28 retries of a handed link, at most (the oldest go first)."""
log = logging.getLogger("revetly.gate")


def url_message(review_id: str) -> str:
    """What the client shows beside the link."""
    return (f"Review {review_id}: open this one-time link, sign in, and approve, reject or "
            "withdraw the draft on the review page.")


@dataclass(frozen=True)
class Declared:
    """What this shell needs of the client's declaration, read through core's gate functions."""

    name: str | None
    version: str | None
    reviewer_withheld: bool
    gate: GateChoice


def declaration_of(rctx: ServerRequestContext[Any, Any], issuer: str | None = None) -> Declared:
    """The client's declaration and the gate core chooses for it (the url gate only where the
    endpoint serves the review page, which passes its issuer)."""
    decl = ClientDeclaration.from_initialize(declared_params(rctx), issuer=issuer)
    return Declared(decl.name, decl.version, reviewer_tools_withheld(decl), select_gate(decl))


def register_review_app(mcp: MCPServer) -> None:
    """The self-contained review app, served as a ui:// resource."""
    html = resources.files("revetly_mcp").joinpath("review_app.html").read_text("utf-8")

    @mcp.resource(REVIEW_APP_URI, name="review-app", title="Revetly review",
                  description="The review app: the whole draft, approve / reject / withdraw.",
                  mime_type=APP_MIME)
    def review_app() -> str:
        return html


def page_model(page: dict[str, Any]) -> type[BaseModel]:
    """The form one review page asks: proceed on a content page; approve + reason on the
    decision page (and withdraw on a re-raised review's). The page body is the first field's
    description."""
    body = page["body"]
    if page["kind"] == "content":
        return create_model("ReviewPage", proceed=(bool, Field(default=True, title="Continue",
                                                               description=body)))
    fields: dict[str, Any] = {
        "approve": (bool, Field(default=False, title="Approve", description=body)),
        "reason": (str, Field(default="", title="Reason")),
    }
    if page.get("withdraw"):
        fields["withdraw"] = (bool, Field(default=False, title="Withdraw without deciding"))
    return create_model("ReviewDecision", **fields)


def page_message(page: dict[str, Any]) -> str:
    """The dialog's message: the page header, then its navigation line."""
    return f"{page['header']}\n{page['nav']}"


class GateRenderer:
    """Renders core's gate choice for the gated writes, and serves the reviewer's tools."""

    def __init__(self, server: RevetlyServer) -> None:
        self.server = server
        self.review_page: ReviewPage | None = None
        self.handed: dict[str, CallToolResult] = {}
        """2026-07-28 calls whose link went out in an input-required round, by review id."""

    def serve_url_gate(self, page: ReviewPage) -> None:
        """The endpoint serves the review page: url-capable clients get the url gate."""
        self.review_page = page

    @property
    def issuer(self) -> str | None:
        """The issuer the url gate signs reviewers in at, where the review page is served."""
        return self.review_page.auth.issuer if self.review_page is not None else None

    def session_arguments(self, name: str, rctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
        """What a gated or reviewer call carries about this connection: the gate core chose,
        the session it came from, and the channel a decision arrives on."""
        from revetly_core.surface import tool_spec

        spec = tool_spec(name)
        if spec.opens_review:
            decl = declaration_of(rctx, self.issuer)
            args: dict[str, Any] = {"gate": decl.gate,
                                    "session_id": self.server.sessions.state(rctx).session_id}
            if name != "raise_review":  # the drafting agent, by its client info
                args.update(agent_name=decl.name, agent_version=decl.version)
            return args
        if spec.app_only and not spec.read_only:
            return {"decided_via": "mcp-app",
                    "session_id": self.server.sessions.state(rctx).session_id}
        return {}

    # ------------------------------------------------------------------ the dialog
    async def gated(self, name: str, ctx: Context,
                    **arguments: Any) -> CallToolResult | InputRequiredResult:
        """A gated write: record the review, then render the gate core chose. On 2026-07-28 a
        retried round carries the review and page in its (SDK-sealed) request state."""
        server = self.server
        rctx = ctx.request_context
        state = ctx.request_state
        if state and state.startswith(LINK_STATE):
            return await self._link_handed(state[len(LINK_STATE):])
        if state and state.startswith("REV-"):
            review_id, _, index = state.partition("|")
            return await self._dialog(ctx, review_id, int(index or 0))
        result = await server.answer(name, ctx, **arguments)
        payload = result.structured_content or {}
        decl = declaration_of(rctx, self.issuer)
        if payload.get("status") != "awaiting-review":
            return result
        if decl.gate.kind == "url" and self.review_page is not None:
            return await self._hand_link(ctx, payload["review_id"], result)
        if decl.gate.kind != "elicitation":
            return result
        return await self._dialog(ctx, payload["review_id"], 0)

    # ------------------------------------------------------------------ the url gate
    async def _hand_link(self, ctx: Context, review_id: str,
                         result: CallToolResult) -> CallToolResult | InputRequiredResult:
        """Mint the review's one-time link (killing any earlier one) and hand it to the client
        by URL elicitation (on 2026-07-28, as an input-required round); the call answers
        awaiting-review whatever the client replied, and the page's decision later reaches the
        raising session as elicitation/complete."""
        assert self.review_page is not None
        link, url = self.review_page.mint(review_id, ctx.session)
        if not can_send_requests(ctx.request_context):  # 2026-07-28: an input-required round
            if len(self.handed) >= HANDED_MAX:  # a client that never retried: oldest first
                self.handed.pop(next(iter(self.handed)))
            self.handed[review_id] = result
            request = ElicitRequest(params=ElicitRequestURLParams(
                message=url_message(review_id), url=url, elicitation_id=link.elicitation_id))
            return InputRequiredResult(input_requests={LINK_KEY: request},
                                       request_state=f"{LINK_STATE}{review_id}")
        try:
            await ctx.elicit_url(url_message(review_id), url, link.elicitation_id)
        except Exception as exc:  # a client that cannot take it leaves the review pending
            log.info("url elicitation for %s not answered: %s", review_id, exc)
        return result

    async def _link_handed(self, review_id: str) -> CallToolResult:
        """The retried round after the link was handed: the call's own awaiting-review answer
        (or, if this process no longer holds it, the review's state, still pending)."""
        result = self.handed.pop(review_id, None)
        return result if result is not None else await self._dismissed(review_id)

    async def _dialog(self, ctx: Context, review_id: str,
                      index: int) -> CallToolResult | InputRequiredResult:
        """Page through the review and answer it inside this call."""
        server = self.server
        engine = server.surface.engine
        pages: list[dict[str, Any]] = (await server.core(
            lambda: {"pages": engine.review_pages(review_id)}))["pages"]
        rctx = ctx.request_context
        if not can_send_requests(rctx):
            return await self._dialog_round(ctx, review_id, index, pages)
        while index < len(pages):
            page = pages[index]
            model = page_model(page)
            answer = await ctx.elicit(page_message(page), model)
            if not isinstance(answer, AcceptedElicitation):
                return await self._dismissed(review_id)
            outcome = await self._apply(ctx, review_id, page, answer.data.model_dump())
            if outcome is not None:
                return outcome
            index += 1
        return await self._dismissed(review_id)

    async def _dialog_round(self, ctx: Context, review_id: str, index: int,
                            pages: list[dict[str, Any]]) -> CallToolResult | InputRequiredResult:
        """2026-07-28: one page per input-required round; the state names the review and page."""
        responses = ctx.input_responses or {}
        reply = responses.get(PAGE_KEY) if ctx.request_state else None
        if reply is not None and index < len(pages):
            action = getattr(reply, "action", None)
            if action != "accept":
                return await self._dismissed(review_id)
            content = dict(getattr(reply, "content", None) or {})
            data = page_model(pages[index]).model_validate(content).model_dump()
            outcome = await self._apply(ctx, review_id, pages[index], data)
            if outcome is not None:
                return outcome
            index += 1
        if index >= len(pages):
            return await self._dismissed(review_id)
        page = pages[index]
        request = ElicitRequest(params=ElicitRequestFormParams(
            message=page_message(page), requested_schema=render_elicitation_schema(page_model(page))))
        return InputRequiredResult(input_requests={PAGE_KEY: request},
                                   request_state=f"{review_id}|{index}")

    async def _apply(self, ctx: Context, review_id: str, page: dict[str, Any],
                     data: dict[str, Any]) -> CallToolResult | None:
        """One accepted page: None to go on, or the call's answer once the review is decided."""
        if page["kind"] == "content":
            return None if data.get("proceed", True) else await self._dismissed(review_id)
        surface = self.server.surface
        sid = self.server.sessions.state(ctx.request_context).session_id
        reason = data.get("reason") or None
        if data.get("withdraw"):
            call = partial(surface.call, "withdraw_review", {"review_id": review_id, "reason": reason},
                           decided_via="mcp-elicitation", session_id=sid)
        else:
            decision = "approve" if data.get("approve") else "reject"
            call = partial(surface.call, "resolve_review",
                           {"review_id": review_id, "decision": decision, "reason": reason},
                           decided_via="mcp-elicitation", session_id=sid)
        return tool_result(await self.server.core(call))

    async def _dismissed(self, review_id: str) -> CallToolResult:
        """A dismissed dialog decides nothing: the review's own state, still pending."""
        from revetly_core.surface import dismissed_review

        state = await self.server.core(lambda: self.server.surface.call(
            "review_state", {"review_id": review_id}))
        return tool_result(dismissed_review(review_id, state))
