"""The first frames of a stdio connection, read and perhaps answered before the SDK has loaded.

``read_opening`` reads the input pipe (blocking, with the stdlib) until the first frame that
is not blank, an oversize line or the end; ``open_connection`` answers that frame early when
it is an initialize ``handshake`` vouches for. The transport then serves the frames already
cut and the splitter's unfinished line before it reads on (decisions/0038), so the SDK sees
every byte in the order it came, the opening initialize included.
"""

from __future__ import annotations

import os
from contextlib import suppress
from dataclasses import dataclass, field

from revetly_mcp.frames import DRAIN_CHUNK, END, FrameSplitter
from revetly_mcp.handshake import EarlyAnswer, early_answer


@dataclass
class Opening:
    """What was read before the SDK was ready: the frames cut so far (the first that is not
    blank decides), the splitter holding the next line's first bytes, and the early answer, if
    one was written."""

    frames: list[bytes | str]
    splitter: FrameSplitter
    answered: EarlyAnswer | None = field(default=None)

    def deciding_frame(self) -> bytes | None:
        """The first frame that is a line with something on it; None when the opening ended in
        an oversize line or the end of input instead."""
        frame = next((f for f in self.frames if decides(f)), END)
        return frame if isinstance(frame, bytes) else None


def decides(frame: bytes | str) -> bool:
    """Whether a frame ends the opening read: anything but a blank line (which the transport
    skips, so the SDK never sees it)."""
    return not isinstance(frame, bytes) or bool(frame.strip())


def read_opening(fd: int, max_frame: int) -> Opening:
    """Read a blocking pipe until a frame decides (see ``decides``), keeping every frame cut
    with it and the unfinished line after."""
    splitter = FrameSplitter(max_frame)
    frames: list[bytes | str] = []
    while not any(decides(frame) for frame in frames):
        try:
            data = os.read(fd, DRAIN_CHUNK)
        except OSError:
            data = b""
        frames.extend(splitter.feed(data) if data else splitter.end())
    return Opening(frames, splitter)


def write_all(fd: int, data: bytes) -> bool:
    """Write all of data to a blocking pipe; False when the reader has gone."""
    view = memoryview(data)
    with suppress(OSError):
        while view:
            view = view[os.write(fd, view):]
        return True
    return False


def open_connection(fd_in: int, fd_out: int, max_frame: int, server_version: str) -> Opening:
    """Read the opening frames and, when the deciding one is a vouched-for initialize, write
    its answer now (the SDK's own answer to it is dropped later)."""
    opening = read_opening(fd_in, max_frame)
    frame = opening.deciding_frame()
    answer = early_answer(frame, server_version) if frame is not None else None
    if answer is not None and write_all(fd_out, answer.line):
        opening.answered = answer
    return opening
