"""The transport's pipe path: frames cut on the event loop exactly as read_frame reads them,
the pipe ends left as they were found, and any other stream still served through a thread."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from hypothesis import given
from hypothesis import strategies as st
from revetly_mcp.transport import (
    END,
    FrameSplitter,
    is_pipe,
    nonblocking,
    pipe_frames,
    read_frame,
    thread_frames,
    write_pipe,
)

from tests.mcp.rawstdio import INIT

LINE_BYTES = st.sampled_from([b"a", b"\r", b"\n", b"{}", b"xyz", b"\n\n", b"0123456789"])


def frames_of_stream(data: bytes, max_frame: int) -> list[bytes | str]:
    """What read_frame reads from these bytes, END included."""
    stream, frames = io.BytesIO(data), []
    while True:
        frames.append(read_frame(stream, max_frame))
        if frames[-1] == END:
            return frames


def frames_of_splitter(chunks: list[bytes], max_frame: int) -> list[bytes | str]:
    splitter = FrameSplitter(max_frame)
    frames: list[bytes | str] = []
    for chunk in chunks:
        frames.extend(splitter.feed(chunk))
    return frames + splitter.end()


@given(st.lists(LINE_BYTES, max_size=30), st.integers(min_value=1, max_value=12),
       st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=8))
def test_the_splitter_cuts_any_bytes_in_any_chunks_as_read_frame_does(
        parts: list[bytes], max_frame: int, cuts: list[int]) -> None:
    data = b"".join(parts)
    chunks, at, n = [], 0, 0
    while at < len(data):
        size = cuts[n % len(cuts)]
        chunks.append(data[at:at + size])
        at, n = at + size, n + 1
    assert frames_of_splitter(chunks, max_frame) == frames_of_stream(data, max_frame)


def test_a_line_longer_than_the_cap_is_never_held_whole() -> None:
    splitter = FrameSplitter(10)
    for _ in range(1000):
        assert splitter.feed(b"y" * 64) == []
        assert splitter.held() <= 10 + 64
    assert splitter.feed(b"tail\nok\n") == ["oversize", b"ok"]


def test_only_a_pipe_end_is_a_pipe(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb", closefd=False) as stream:
            assert is_pipe(stream)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert not is_pipe(io.BytesIO(b""))
    with (tmp_path / "f").open("wb") as regular:
        assert not is_pipe(regular)


def test_the_pipe_ends_are_left_blocking_as_they_were() -> None:
    read_end, write_end = os.pipe()
    try:
        with nonblocking([read_end, write_end]):
            assert not os.get_blocking(read_end) and not os.get_blocking(write_end)
        assert os.get_blocking(read_end) and os.get_blocking(write_end)
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_write_larger_than_the_pipe_waits_for_the_reader_and_arrives_whole() -> None:
    payload = b"".join(b"%06d\n" % n for n in range(60_000))  # 420 kB: several pipefuls

    async def main() -> list[bytes | str]:
        read_end, write_end = os.pipe()
        frames: list[bytes | str] = []
        try:
            with nonblocking([read_end, write_end]):
                async def write_then_close() -> None:
                    await write_pipe(write_end, payload)
                    os.close(write_end)

                async with anyio.create_task_group() as group:
                    group.start_soon(write_then_close)
                    async for frame in pipe_frames(read_end, 100):
                        frames.append(frame)
        finally:
            os.close(read_end)
        return frames

    frames = anyio.run(main)
    assert frames == [b"%06d" % n for n in range(60_000)]


def test_a_stream_that_is_no_pipe_is_read_through_a_thread_frame_by_frame() -> None:
    data = b'{"a":1}\n' + b"z" * 50 + b"\n\nlast"

    async def main() -> list[bytes | str]:
        return [frame async for frame in thread_frames(io.BytesIO(data), 20)]

    assert [*anyio.run(main), END] == frames_of_stream(data, 20)


def test_a_server_writing_to_a_file_answers_through_its_writer_thread(synced_instance: Path,
                                                                       tmp_path: Path) -> None:
    answers = tmp_path / "out.jsonl"
    with answers.open("wb") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "revetly_mcp", "--instance",
                                 str(synced_instance)], stdin=subprocess.PIPE, stdout=stdout,
                                stderr=subprocess.DEVNULL)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n" + json.dumps(
            {"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode() + b"\n")
        proc.stdin.flush()
        for _ in range(1200):  # until both answers are in the file (or two minutes passed)
            if answers.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.1)
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0
    lines = [json.loads(line) for line in answers.read_bytes().splitlines()]
    assert [line.get("id") for line in lines if "id" in line] == [1, 2]
    assert lines[0]["result"]["serverInfo"]["name"] == "revetly"
