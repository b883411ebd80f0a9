"""The opening read of a stdio connection: the first frames off a real pipe, the early answer
written only for a vouched initialize, and the transport serving what was read first."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp.types import JSONRPCError, JSONRPCResponse
from revetly_core.surface import Surface
from revetly_mcp.frames import END, OVERSIZE
from revetly_mcp.opening import Opening, decides, open_connection, read_opening, write_all
from revetly_mcp.sdk_seam import lowlevel_server
from revetly_mcp.server import build_server
from revetly_mcp.transport import is_reply_to, pipe_frames, serve_stdio_guarded

from revetly_core import __version__
from tests.mcp.rawstdio import INIT

pytestmark = pytest.mark.anyio

INIT_LINE = json.dumps(INIT).encode() + b"\n"


def pipe_with(data: bytes, *, close: bool = True) -> tuple[int, int]:
    """A pipe holding data (its write end closed after, unless asked not to): (read, write)."""
    r, w = os.pipe()
    os.write(w, data)
    if close:
        os.close(w)
        return r, -1
    return r, w


def test_decides_skips_only_a_blank_line() -> None:
    assert not decides(b"") and not decides(b"  \r")
    assert decides(b"{}") and decides(OVERSIZE) and decides(END)


def test_the_opening_stops_at_the_first_frame_with_something_on_it() -> None:
    r, w = pipe_with(b"\n\n" + INIT_LINE + b'{"a":1}\n{"b"', close=False)
    opening = read_opening(r, 1024)
    assert opening.frames == [b"", b"", INIT_LINE[:-1], b'{"a":1}']
    assert opening.splitter.held() == 4  # the unfinished line waits for the transport
    assert opening.deciding_frame() == INIT_LINE[:-1]
    os.close(r)
    os.close(w)


def test_the_opening_ends_with_the_input() -> None:
    r, _ = pipe_with(b"\n{\"last\":1}")
    opening = read_opening(r, 1024)
    assert opening.frames == [b"", b'{"last":1}', END]
    os.close(r)


def test_an_oversize_first_line_decides_without_a_frame_to_answer() -> None:
    r, _ = pipe_with(b"x" * 50 + b"\n")
    opening = read_opening(r, 10)
    assert opening.frames == [OVERSIZE] and opening.deciding_frame() is None
    os.close(r)


def test_a_vouched_initialize_is_answered_at_once() -> None:
    r, _ = pipe_with(INIT_LINE)
    out_r, out_w = os.pipe()
    opening = open_connection(r, out_w, 1024 * 1024, __version__)
    os.close(out_w)
    written = os.read(out_r, 65536)
    assert opening.answered is not None and written == opening.answered.line
    assert json.loads(written)["result"]["serverInfo"]["name"] == "revetly"
    os.close(r)
    os.close(out_r)


@pytest.mark.parametrize("first", [b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                                   b"[" + INIT_LINE[:-1] + b"]", b"{not json"])
def test_any_other_first_frame_is_not_answered(first: bytes) -> None:
    r, _ = pipe_with(first + b"\n")
    out_r, out_w = os.pipe()
    opening = open_connection(r, out_w, 1024 * 1024, __version__)
    os.close(out_w)
    assert opening.answered is None
    assert os.read(out_r, 65536) == b""  # nothing was written
    os.close(r)
    os.close(out_r)


def test_write_all_says_when_the_reader_has_gone() -> None:
    r, w = os.pipe()
    os.close(r)
    assert write_all(w, b"x\n") is False
    os.close(w)


def test_is_reply_to_matches_the_id_as_the_same_json_value() -> None:
    assert is_reply_to(JSONRPCResponse(jsonrpc="2.0", id=1, result={}), 1)
    assert not is_reply_to(JSONRPCResponse(jsonrpc="2.0", id="1", result={}), 1)
    assert is_reply_to(JSONRPCError.model_validate(
        {"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "m"}}), "a")


async def test_pipe_frames_serve_the_opening_first_then_the_rest_of_its_line() -> None:
    r, w = pipe_with(INIT_LINE + b'{"a"', close=False)
    opening = read_opening(r, 1024)
    os.write(w, b':1}\n{"b":2}\n')
    os.close(w)
    os.set_blocking(r, False)
    frames = [frame async for frame in pipe_frames(r, 1024, opening)]
    assert frames == [INIT_LINE[:-1], b'{"a":1}', b'{"b":2}']
    os.close(r)


@pytest.fixture()
def low(synced_instance: Path) -> Iterator[Any]:
    yield lowlevel_server(build_server(Surface.open(synced_instance)))


def read_lines(fd: int, count: int) -> list[dict[str, Any]]:
    """The next count lines off a blocking pipe, parsed."""
    data = b""
    while data.count(b"\n") < count:
        chunk = os.read(fd, 65536)
        assert chunk, "the server closed its stdout"
        data += chunk
    return [json.loads(line) for line in data.splitlines()[:count]]


async def served_after_a_ping(low: Any, opening: Opening, wire_in: tuple[int, int],
                              wire_out: tuple[int, int], count: int) -> list[dict[str, Any]]:
    """Serve the opening over real pipes, send a ping (id 2) and read the first count answers;
    the input is closed after, which ends the serving."""
    (in_r, in_w), (out_r, out_w) = wire_in, wire_out
    with os.fdopen(in_r, "rb", buffering=0) as stdin, os.fdopen(out_w, "wb", buffering=0) as stdout:
        async with anyio.create_task_group() as group:
            group.start_soon(partial(serve_stdio_guarded, low, low.create_initialization_options(),
                                     stdin=stdin, stdout=stdout, opening=opening))
            os.write(in_w, b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
            answers = await anyio.to_thread.run_sync(read_lines, out_r, count)
            os.close(in_w)
    os.close(out_r)
    return answers


async def test_the_sdks_answer_to_an_early_initialize_is_not_written_again(low: Any) -> None:
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    os.write(in_w, INIT_LINE + b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
             b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')  # the id used again
    opening = open_connection(in_r, out_w, 1024 * 1024, __version__)
    assert opening.answered is not None
    answers = await served_after_a_ping(low, opening, (in_r, in_w), (out_r, out_w), 3)
    assert [a.get("id") for a in answers] == [1, 1, 2]
    assert "capabilities" in answers[0]["result"]  # the early answer, once
    assert "tools" in answers[1]["result"]  # then the SDK's answers, in order
    assert answers[2]["result"] == {}


async def test_an_sdk_answer_unlike_the_early_one_is_said_on_stderr(
        low: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from revetly_mcp.handshake import EarlyAnswer

    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    os.write(in_w, INIT_LINE)
    opening = read_opening(in_r, 1024 * 1024)
    opening.answered = EarlyAnswer(1, b'{"jsonrpc":"2.0","id":1,"result":{"stale":true}}\n')
    answers = await served_after_a_ping(low, opening, (in_r, in_w), (out_r, out_w), 1)
    assert answers == [{"jsonrpc": "2.0", "id": 2, "result": {}}]  # still not written twice
    assert "unlike the early answer" in capsys.readouterr().err
