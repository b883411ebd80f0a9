"""An HTTP answer's body read with its size bounded before the bytes arrive."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from revetly_core.connectors.http_body import BodyTooLarge, bounded_body


class Chunks(httpx.SyncByteStream):
    """A body that arrives in pieces, counting how many were pulled."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces
        self.pulled = 0

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.pieces:
            self.pulled += 1
            yield piece


def test_a_body_within_the_limit_is_read_whole() -> None:
    assert bounded_body(httpx.Response(200, stream=Chunks([b"ab", b"cd"])), 4) == b"abcd"


def test_a_streamed_body_is_refused_at_the_piece_that_passes_the_limit() -> None:
    stream = Chunks([b"x" * 4, b"x" * 4, b"x" * 4, b"x" * 4])
    with pytest.raises(BodyTooLarge):
        bounded_body(httpx.Response(200, stream=stream), 6)
    assert stream.pulled == 2  # nothing after the piece that crossed it


def test_a_declared_length_over_the_limit_is_refused_before_a_byte_is_read() -> None:
    stream = Chunks([b"x"])
    response = httpx.Response(200, headers={"Content-Length": "999999"}, stream=stream)
    with pytest.raises(BodyTooLarge):
        bounded_body(response, 10)
    assert stream.pulled == 0
