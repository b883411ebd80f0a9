"""Reading an HTTP answer's body with its size bounded before the bytes arrive."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx


class BodyTooLarge(ValueError):
    """An answer whose body is over the limit its reader set."""


def bounded_body(response: httpx.Response, limit: int) -> bytes:
    """The streamed body of `response`, refused as soon as it passes `limit` bytes (a declared
    Content-Length over the limit is refused before a byte is read)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the answer declares {declared} bytes, over the {limit}-byte limit")
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the answer is over the {limit}-byte limit")
        chunks.append(chunk)
    return b"".join(chunks)
