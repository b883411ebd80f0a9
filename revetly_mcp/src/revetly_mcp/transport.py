"""A hardened stdio transport: every line is capped, parsed and answered before the SDK sees it.

The SDK's own stdio loop drops a malformed line without a word and reads a line of any size
into memory. This transport reads stdin itself, one capped frame at a time, answers what is
not a JSON-RPC message with a JSON-RPC error, and hands the rest to the low-level server over
in-memory streams. Whatever a line holds, the server keeps serving the next one.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter
from pydantic import ValidationError

from revetly_mcp.wire_line import message_line

DEFAULT_MAX_FRAME = 1024 * 1024
"""The longest line (in bytes, newline excluded) the transport reads as one message."""

MAX_SAFE_INTEGER = 2**53 - 1
MAX_ID_BYTES = 256
_DRAIN_CHUNK = 64 * 1024

IdRule = Callable[[object], bool]
Screen = Callable[[dict[str, Any]], dict[str, Any] | None]


def lenient_id(value: object) -> bool:
    """A JSON-RPC id as the protocol allows it: a string or an integer (a bool is neither)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def strict_id(value: object) -> bool:
    """An id a client in any language can echo: a string of ≤ 256 UTF-8 bytes, or a safe integer.

    The one id rule of both servers (engine and governed), whatever transport carries them."""
    if not lenient_id(value):
        return False
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) <= MAX_ID_BYTES
    assert isinstance(value, int)
    return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


def error_response(code: int, message: str, request_id: object = None) -> dict[str, Any]:
    """A JSON-RPC error object answering one line."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


OVERSIZE = "oversize"
END = "end"


def read_frame(stream: BinaryIO, max_frame: int) -> bytes | str:
    """The next line of at most max_frame bytes (newline stripped), or END at end of input.

    A longer line is read through to its newline in bounded chunks and discarded, and OVERSIZE
    says so; memory never holds more than max_frame + one chunk of it.
    """
    line = stream.readline(max_frame + 1)
    if not line:
        return END
    if line.endswith(b"\n"):
        return line[:-1].rstrip(b"\r")
    if len(line) <= max_frame:
        return line  # the last line of the input, without its newline
    while True:
        chunk = stream.readline(_DRAIN_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return OVERSIZE


class FrameSplitter:
    """Cuts the bytes read from a pipe into the frames `read_frame` would read from the same
    bytes: each line of at most max_frame bytes (newline and trailing CRs stripped), OVERSIZE
    for a longer one once its newline came, and at the end the last line without a newline.
    It holds at most max_frame bytes and one chunk: a longer line is dropped as it arrives."""

    def __init__(self, max_frame: int) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes | str]:
        """The frames these bytes complete, in order."""
        frames: list[bytes | str] = []
        self._buffer += data
        while True:
            newline = self._buffer.find(b"\n")
            if newline < 0:
                if self._discarding or len(self._buffer) > self.max_frame:
                    self._buffer.clear()
                    self._discarding = True
                return frames
            if self._discarding or newline > self.max_frame:
                frames.append(OVERSIZE)
            else:
                frames.append(bytes(self._buffer[:newline]).rstrip(b"\r"))
            del self._buffer[:newline + 1]
            self._discarding = False

    def held(self) -> int:
        """How many bytes of an unfinished line it holds."""
        return len(self._buffer)

    def end(self) -> list[bytes | str]:
        """What the end of input leaves: a last line without newline (OVERSIZE when it was too
        long), then END."""
        last: list[bytes | str] = [OVERSIZE] if self._discarding else (
            [bytes(self._buffer)] if self._buffer else [])
        self._buffer.clear()
        self._discarding = False
        return [*last, END]


def is_pipe(stream: BinaryIO) -> bool:
    """Whether a stream is a pipe's end, which the event loop can wait on without a thread."""
    try:
        return stat.S_ISFIFO(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


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


async def pipe_frames(fd: int, max_frame: int) -> AsyncIterator[bytes | str]:
    """The frames of a non-blocking pipe up to its end, read on the event loop (no thread hop
    per line)."""
    splitter = FrameSplitter(max_frame)
    while True:
        try:
            data = os.read(fd, _DRAIN_CHUNK)
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


def _dump_line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


@contextmanager
def _claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The process's stdin/stdout as private binary streams; fd 0 reads /dev/null and fd 1
    writes to stderr meanwhile, so a stray print never lands on the wire."""
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    sys.stdout.flush()
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    try:
        with os.fdopen(wire_in, "rb", closefd=False) as rin, \
                os.fdopen(wire_out, "wb", closefd=False) as rout:
            yield rin, rout
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)


async def serve_stdio_guarded(
    lowlevel_server: Any,
    initialization_options: Any,
    *,
    max_frame: int = DEFAULT_MAX_FRAME,
    id_rule: IdRule = strict_id,
    screen: Screen | None = None,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> None:
    """Serve one connection over stdio (or the given binary streams) until stdin ends."""
    if stdin is None or stdout is None:
        with _claimed_stdio() as (wire_in, wire_out):
            await _serve(lowlevel_server, initialization_options, max_frame, id_rule, screen,
                         stdin or wire_in, stdout or wire_out)
    else:
        await _serve(lowlevel_server, initialization_options, max_frame, id_rule, screen,
                     stdin, stdout)


async def _serve(
    lowlevel_server: Any,
    initialization_options: Any,
    max_frame: int,
    id_rule: IdRule,
    screen: Screen | None,
    stdin: BinaryIO,
    stdout: BinaryIO,
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
        frames = (pipe_frames(pipe_in, max_frame) if pipe_in is not None
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
        async with out_recv:
            async for session_message in out_recv:
                await write(message_line(session_message.message))

    with nonblocking([fd for fd in (pipe_in, pipe_out) if fd is not None]):
        async with anyio.create_task_group() as group:
            group.start_soon(writer)
            group.start_soon(reader)
            async with out_send:
                await lowlevel_server.run(in_recv, out_send, initialization_options)
            group.cancel_scope.cancel()
