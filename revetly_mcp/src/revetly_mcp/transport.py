"""A hardened stdio transport: every line is capped, parsed and answered before the SDK sees it.

The SDK's own stdio loop drops a malformed line without a word and reads a line of any size
into memory. This transport reads stdin itself, one capped frame at a time, answers what is
not a JSON-RPC message with a JSON-RPC error, and hands the rest to the low-level server over
in-memory streams. Whatever a line holds, the server keeps serving the next one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    JSONRPCError,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from revetly_mcp.frames import (
    DEFAULT_MAX_FRAME,
    DRAIN_CHUNK,
    END,
    MAX_ID_BYTES,
    MAX_SAFE_INTEGER,
    OVERSIZE,
    FrameSplitter,
    claimed_stdio,
    error_response,
    is_pipe,
    lenient_id,
    read_frame,
    strict_id,
)
from revetly_mcp.opening import Opening
from revetly_mcp.wire_line import message_line

__all__ = ["DEFAULT_MAX_FRAME", "END", "MAX_ID_BYTES", "MAX_SAFE_INTEGER", "OVERSIZE",
           "FrameSplitter", "IdRule", "Screen", "error_response", "is_pipe", "is_reply_to",
           "lenient_id", "nonblocking", "pipe_frames", "read_frame", "screen_frame", "serve_stdio_guarded",
           "strict_id", "thread_frames", "write_pipe"]

IdRule = Callable[[object], bool]
Screen = Callable[[dict[str, Any]], dict[str, Any] | None]


@contextmanager
def nonblocking(fds: list[int]) -> Iterator[None]:
    """The pipe ends read and written without blocking while served, as they were after."""
    before = [(fd, os.get_blocking(fd)) for fd in fds]
    try:
        for fd, _ in before:
            os.set_blocking(fd, False)
        yield
    finally:
        for fd, blocking in before:
            with suppress(OSError):
                os.set_blocking(fd, blocking)


async def pipe_frames(fd: int, max_frame: int,
                      opening: Opening | None = None) -> AsyncIterator[bytes | str]:
    """The frames of a non-blocking pipe up to its end, read on the event loop (no thread hop
    per line); after an opening, its frames first, then the rest of the line it holds."""
    splitter = FrameSplitter(max_frame) if opening is None else opening.splitter
    for frame in opening.frames if opening is not None else ():
        if frame == END:
            return
        yield frame
    while True:
        try:
            data = os.read(fd, DRAIN_CHUNK)
        except BlockingIOError:
            await anyio.wait_readable(fd)
            continue
        for frame in splitter.feed(data) if data else splitter.end():
            if frame == END:
                return
            yield frame


async def write_pipe(fd: int, data: bytes) -> None:
    """Write all of data to a non-blocking pipe, waiting on the event loop while it is full."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            await anyio.wait_writable(fd)


async def thread_frames(stream: BinaryIO, max_frame: int) -> AsyncIterator[bytes | str]:
    """The frames of any other stream up to its end, each read in a worker thread."""
    while True:
        frame = await anyio.to_thread.run_sync(read_frame, stream, max_frame,
                                               abandon_on_cancel=True)
        if frame == END:
            return
        yield frame


def screen_frame(frame: bytes, id_rule: IdRule) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Parse one frame: (the message, None) or (None, the error answering it)."""
    try:
        raw = json.loads(frame)
    except (ValueError, RecursionError):
        return None, error_response(PARSE_ERROR, "Parse error: the line is not valid JSON")
    if not isinstance(raw, dict):
        return None, error_response(INVALID_REQUEST, "Invalid Request: a message is one JSON object")
    if "id" in raw and not id_rule(raw["id"]):
        return None, error_response(
            INVALID_REQUEST, "Invalid Request: an id is a string of at most 256 UTF-8 bytes or an "
            "integer within ±(2^53 - 1)"
        )
    if raw.get("jsonrpc") != "2.0":
        return None, error_response(
            INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', raw.get("id")
        )
    return raw, None


def is_reply_to(message: object, request_id: int | str) -> bool:
    """Whether an outgoing message is the response (or error) to the request of that id (the
    same JSON value: 1 and "1" are different ids)."""
    if not isinstance(message, JSONRPCResponse | JSONRPCError):
        return False
    answered = message.id
    return type(answered) is type(request_id) and answered == request_id


def _dump_line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


async def serve_stdio_guarded(
    lowlevel_server: Any,
    initialization_options: Any,
    *,
    max_frame: int = DEFAULT_MAX_FRAME,
    id_rule: IdRule = strict_id,
    screen: Screen | None = None,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    opening: Opening | None = None,
) -> None:
    """Serve one connection over stdio (or the given binary streams) until stdin ends. An
    opening (frames read off the stdin pipe before the SDK was ready) is served first; when it
    answered initialize early, the SDK's own answer to that request is not written again."""
    if stdin is None or stdout is None:
        with claimed_stdio() as (wire_in, wire_out):
            await _serve(lowlevel_server, initialization_options, max_frame, id_rule, screen,
                         stdin or wire_in, stdout or wire_out, opening)
    else:
        await _serve(lowlevel_server, initialization_options, max_frame, id_rule, screen,
                     stdin, stdout, opening)


async def _serve(
    lowlevel_server: Any,
    initialization_options: Any,
    max_frame: int,
    id_rule: IdRule,
    screen: Screen | None,
    stdin: BinaryIO,
    stdout: BinaryIO,
    opening: Opening | None,
) -> None:
    in_send: MemoryObjectSendStream[SessionMessage | Exception]
    in_recv: MemoryObjectReceiveStream[SessionMessage | Exception]
    out_send: MemoryObjectSendStream[SessionMessage]
    out_recv: MemoryObjectReceiveStream[SessionMessage]
    in_send, in_recv = anyio.create_memory_object_stream(0)
    out_send, out_recv = anyio.create_memory_object_stream(0)
    write_lock = anyio.Lock()

    pipe_in = stdin.fileno() if is_pipe(stdin) else None
    pipe_out = stdout.fileno() if is_pipe(stdout) else None
    if opening is not None and pipe_in is None:
        raise ValueError("an opening is read off a pipe, and stdin is not one")

    def write_blocking(data: bytes) -> None:
        stdout.write(data)
        stdout.flush()

    async def write(data: bytes) -> None:
        async with write_lock:
            # a host that went away is noticed by the reader at end of input
            with suppress(BrokenPipeError, ValueError, OSError):
                if pipe_out is not None:
                    await write_pipe(pipe_out, data)
                else:
                    await anyio.to_thread.run_sync(write_blocking, data)

    async def reader() -> None:
        frames = (pipe_frames(pipe_in, max_frame, opening) if pipe_in is not None
                  else thread_frames(stdin, max_frame))
        async with in_send:
            async for frame in frames:
                if frame == OVERSIZE:
                    await write(_dump_line(error_response(
                        INVALID_REQUEST, f"Invalid Request: the line exceeds {max_frame} bytes"
                    )))
                    continue
                assert isinstance(frame, bytes)
                if not frame.strip():
                    continue
                await _dispatch(frame)

    async def _dispatch(frame: bytes) -> None:
        raw, error = screen_frame(frame, id_rule)
        if error is not None:
            await write(_dump_line(error))
            return
        assert raw is not None
        if screen is not None:
            answer = screen(raw)
            if answer is not None:
                await write(_dump_line(answer))
                return
        try:
            message = jsonrpc_message_adapter.validate_python(raw, by_name=False)
        except ValidationError:
            await write(_dump_line(error_response(
                INVALID_REQUEST, "Invalid Request: not a JSON-RPC request, notification or response",
                raw.get("id"),
            )))
            return
        await in_send.send(SessionMessage(message))

    async def writer() -> None:
        early = opening.answered if opening is not None else None
        async with out_recv:
            async for session_message in out_recv:
                line = message_line(session_message.message)
                if early is not None and is_reply_to(session_message.message, early.request_id):
                    if line != early.line:
                        sys.stderr.write("revetly-mcp: the SDK answered initialize unlike the "
                                         "early answer (revetly_mcp.handshake is out of date)\n")
                    early = None
                    continue
                await write(line)

    with nonblocking([fd for fd in (pipe_in, pipe_out) if fd is not None]):
        async with anyio.create_task_group() as group:
            group.start_soon(writer)
            group.start_soon(reader)
            async with out_send:
                await lowlevel_server.run(in_recv, out_send, initialization_options)
            group.cancel_scope.cancel()
