"""The stdio MCP server: every tool, prompt and resource a single call into revetly_core."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from inspect import Parameter, Signature
from typing import Annotated, Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer, UserMessage
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from revetly_core.surface import (
    BRIEF_URI_TEMPLATE,
    HEALTH_URI,
    PROMPTS,
    RESOURCE_MIME,
    REVIEW_URI_TEMPLATE,
    SURFACE_URI,
    Surface,
    ToolSpec,
    invalid_argument_refusal,
    prompt_request_refusal,
    prompt_text,
    tool_spec,
)

from revetly_core import Engine, __version__
from revetly_mcp.core_worker import CoreWorker
from revetly_mcp.gate import GateRenderer, declaration_of, register_review_app
from revetly_mcp.handshake import INSTRUCTIONS, SERVER_NAME
from revetly_mcp.protocol import (
    argument_problem,
    initialize_first_error,
    refusal_error,
    registered_tool,
    served_before_initialize,
    tool_call_target,
    unknown_tool_error,
)
from revetly_mcp.schemas import answer_or_refusal, payload_text, tool_result
from revetly_mcp.sdk_seam import lowlevel_server, publish_output_schema_only
from revetly_mcp.session import Sessions
from revetly_mcp.transport import DEFAULT_MAX_FRAME, serve_stdio_guarded, strict_id

ToolBody = Callable[..., Awaitable[CallToolResult | InputRequiredResult]]
"""What answers a registered tool: ``body(name, ctx, **arguments)``."""


def tool_signature(spec: ToolSpec) -> Signature:
    """The signature the SDK reads a tool's input schema from: the declaration's typed
    arguments as keyword parameters (with their defaults), the call's Context, and the
    answer-or-refusal output schema."""
    parameters = [Parameter("ctx", Parameter.KEYWORD_ONLY, annotation=Context)]
    for argument, field in spec.parameters.model_fields.items():
        default = Parameter.empty if field.is_required() else field.default
        parameters.append(Parameter(argument, Parameter.KEYWORD_ONLY, annotation=field.annotation,
                                    default=default))
    return Signature(parameters,
                     return_annotation=Annotated[CallToolResult, answer_or_refusal(spec.name)])


def tool_function(spec: ToolSpec, body: ToolBody) -> Callable[..., Awaitable[Any]]:
    """The async function registered as one tool: named after it, with the declared signature,
    handing every argument to ``body``."""
    async def tool(ctx: Context, **arguments: Any) -> CallToolResult | InputRequiredResult:
        return await body(spec.name, ctx, **arguments)

    signature = tool_signature(spec)
    tool.__name__ = tool.__qualname__ = spec.name
    tool.__signature__ = signature  # type: ignore[attr-defined]  # read by inspect.signature
    tool.__annotations__ = {**{p.name: p.annotation for p in signature.parameters.values()},
                            "return": signature.return_annotation}
    return tool


def annotations_of(spec: ToolSpec) -> ToolAnnotations:
    """The MCP annotations of a catalogue entry (nothing here reaches outside the instance)."""
    return ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                           destructive_hint=spec.destructive, idempotent_hint=spec.idempotent,
                           open_world_hint=False)


class RevetlyServer:
    """The MCP shell over one Surface: registers tools, prompts, resources and middleware."""

    def __init__(self, engine: Engine | Surface, project: str | None = None,
                 surface: Surface | None = None) -> None:
        if surface is None:
            surface = engine if isinstance(engine, Surface) else Surface(engine, project)
        self.surface = surface
        self.sessions = Sessions()
        self.worker = CoreWorker()
        self.mcp = MCPServer(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)
        self.gate = GateRenderer(self)
        self.mcp.middleware.append(self._middleware)
        self._register_tools()
        self._register_prompts()
        self._register_resources()
        register_review_app(self.mcp)

    # ------------------------------------------------------------------ calling core
    async def core(self, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run one core call off the event loop, one at a time, in the server's one worker
        thread (decisions/0038)."""
        return await self.worker.run(call)

    async def answer(self, name: str, ctx: Context, **arguments: Any) -> CallToolResult:
        """The generic tool body: one Surface.call, its payload as the result."""
        rctx = ctx.request_context
        decl = declaration_of(rctx)
        payload = await self.core(partial(
            self.surface.call, name, arguments, reviewer_withheld=decl.reviewer_withheld,
            client_name=decl.name, client_version=decl.version,
            **self.gate.session_arguments(name, rctx)))
        return tool_result(payload)

    # ------------------------------------------------------------------ registration
    def _register_tools(self) -> None:
        """Every tool the surface serves, registered from its declaration in core's registry:
        a gated write renders the review gate, every other tool is one Surface.call. Each
        answer is a typed payload of its outputSchema already (decisions/0018), so the SDK
        publishes the schema without validating every answer against it again (0038)."""
        for name in self.surface.served():
            spec = tool_spec(name)
            body: ToolBody = self.gate.gated if spec.opens_review else self.answer
            self.mcp.tool(name=name, title=spec.title, description=spec.description,
                          annotations=annotations_of(spec),
                          meta=spec.meta() or None)(tool_function(spec, body))
            tool = registered_tool(self.mcp, name)
            if tool is not None:
                publish_output_schema_only(tool)

    def _register_prompts(self) -> None:
        def make(name: str, argument: str) -> Callable[..., list[UserMessage]]:
            def prompt(**kwargs: str) -> list[UserMessage]:
                return [UserMessage(prompt_text(name, kwargs.get(argument, "")))]
            return prompt

        for spec in PROMPTS:
            self._add_prompt(spec.name, spec.title, spec.description, spec.argument,
                             spec.argument_description, make(spec.name, spec.argument))

    def _add_prompt(self, name: str, title: str, description: str, argument: str,
                    argument_description: str, fn: Callable[..., list[UserMessage]]) -> None:
        from mcp.server.mcpserver.prompts.base import Prompt, PromptArgument

        prompt = Prompt(name=name, title=title, description=description,
                        arguments=[PromptArgument(name=argument, description=argument_description,
                                                  required=True)],
                        fn=fn, context_kwarg=None)
        self.mcp.add_prompt(prompt)

    def _register_resources(self) -> None:
        surface = self.surface
        core = self.core

        @self.mcp.resource(SURFACE_URI, name="surface", title="Revetly surface",
                           description="The tools, prompts and resources this server serves.",
                           mime_type=RESOURCE_MIME)
        async def surface_resource() -> str:
            return payload_text(await core(surface.surface_resource))

        @self.mcp.resource(HEALTH_URI, name="health", title="CONTEXT health",
                           description="context_health: whether the last read pass landed.",
                           mime_type=RESOURCE_MIME)
        async def health_resource() -> str:
            return payload_text(await core(surface.health_resource))

        @self.mcp.resource(BRIEF_URI_TEMPLATE, name="brief", title="Artifact brief",
                           description="get_artifact's brief of one artifact.",
                           mime_type=RESOURCE_MIME)
        async def brief_resource(artifact_id: str) -> str:
            return payload_text(await core(partial(surface.brief_resource, artifact_id)))

        if "review_state" in surface.served():
            @self.mcp.resource(REVIEW_URI_TEMPLATE, name="review", title="Review",
                               description="One review and its whole draft (read by the review app).",
                               mime_type=RESOURCE_MIME)
            async def review_resource(review_id: str) -> str:
                return payload_text(await core(partial(surface.review_resource, review_id)))

    # ------------------------------------------------------------------ middleware
    async def _middleware(self, ctx: ServerRequestContext[Any, Any],
                          call_next: CallNext) -> HandlerResult:
        """listChanged declared; list_changed once per session; retired and withheld tools."""
        method = ctx.method
        if method == "initialize":
            result = await call_next(ctx)
            if isinstance(result, dict):
                result.setdefault("capabilities", {}).setdefault("tools", {})["listChanged"] = True
            return result
        if not served_before_initialize(self.mcp, ctx):
            raise initialize_first_error(method)
        if ctx.request_id is None or method == "ping":
            return await call_next(ctx)
        await self._announce_once(ctx)
        if method == "tools/list":
            result = await call_next(ctx)
            if isinstance(result, dict) and isinstance(result.get("tools"), list):
                listed = set(self.surface.listed(declaration_of(ctx).reviewer_withheld))
                result["tools"] = [t for t in result["tools"] if t.get("name") in listed]
            return result
        if method == "tools/call":
            refused = self._refused_call(ctx)
            if refused is not None:
                return tool_result(refused)
        if method == "prompts/get":
            self._check_prompt(ctx)
        return await call_next(ctx)

    def _check_prompt(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """An unknown prompt, or one asked without its argument, is -32602 with core's refusal."""
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            return  # the SDK answers a malformed prompts/get -32602 itself
        refusal = prompt_request_refusal(name, arguments if isinstance(arguments, Mapping) else None)
        if refusal is not None:
            raise refusal_error(refusal)

    def _refused_call(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any] | None:
        """A tools/call answered before its body: a retired tool, or an argument the tool does
        not take (by name, from core's catalogue, or by type, from the tool's signature). An
        unknown tool is -32602."""
        target = tool_call_target(ctx)
        if target is None:
            return None
        name, arguments = target
        if name not in self.surface.served():
            if self.surface.is_retired(name):
                return self.surface.call(name, {})
            raise unknown_tool_error(name)
        refused = self.surface.refuse_arguments(name, arguments)
        tool = registered_tool(self.mcp, name)
        if refused is None and tool is not None:
            problem = argument_problem(tool, arguments)
            if problem is not None:
                refused = self.surface.refused_before_call(name, invalid_argument_refusal(
                    name, problem.argument, problem.problem, problem.schema))
        return refused

    async def _announce_once(self, rctx: ServerRequestContext[Any, Any]) -> None:
        """notifications/tools/list_changed on a session's first call, unless it lists tools."""
        if rctx.session.client_params is None:
            return  # 2026-07-28 announces through subscriptions/listen, not this notification
        state = self.sessions.state(rctx)
        if state.announced:
            return
        state.announced = True
        if rctx.method != "tools/list":
            await rctx.session.send_tool_list_changed()


def build_server(engine: Engine | Surface, project: str | None = None,
                 surface: Surface | None = None) -> MCPServer:
    """An MCPServer whose tools are single calls into the engine (or an opened Surface): the
    one builder both transports share (the HTTP endpoint passes its ServedSurface)."""
    return RevetlyServer(engine, project, surface).mcp


def serve_stdio(engine: Engine, project: str | None = None,
                max_frame: int = DEFAULT_MAX_FRAME) -> None:
    """Serve the engine over the hardened stdio transport until the host closes the pipe."""
    low = lowlevel_server(build_server(engine, project))
    anyio.run(lambda: serve_stdio_guarded(low, low.create_initialization_options(),
                                          max_frame=max_frame, id_rule=strict_id))


def run(instance: str | None, project: str | None, max_frame: int = DEFAULT_MAX_FRAME) -> int:
    """`revetly-mcp` and `revetly serve` over stdio: `revetly_mcp.launch.run`, which answers
    initialize while the SDK loads (decisions/0038)."""
    from revetly_mcp.launch import run as launch_run

    return launch_run(instance, project, max_frame)
