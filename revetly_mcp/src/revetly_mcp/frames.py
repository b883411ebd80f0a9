"""Lines off a byte stream, with no SDK loaded: the frame cap, the id rule, the pipe test.

Both the stdio transport and the start that answers initialize before the SDK has loaded
(`revetly_mcp.launch`, decisions/0038) read frames with these, so the first frame is cut
exactly as every later one. Nothing here imports `mcp` or pydantic.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

DEFAULT_MAX_FRAME = 1024 * 1024
"""The longest line (in bytes, newline excluded) the transport reads as one message."""

MAX_SAFE_INTEGER = 2**53 - 1
MAX_ID_BYTES = 256
DRAIN_CHUNK = 64 * 1024


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
        chunk = stream.readline(DRAIN_CHUNK)
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
def claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
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
