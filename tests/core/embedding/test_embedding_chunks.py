"""What of an artifact is embedded: title + prose chunks, and the digest vectors are keyed by."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.embedding.chunks import (
    CHUNK_CHARS,
    MAX_CHUNKS,
    chunk_prose,
    chunks_digest,
    embedding_chunks,
    prose,
)


def test_prose_drops_fenced_code_and_comments() -> None:
    body = "Lanes flicker.\n\n```ts\nconst x = 1;\n```\n<!-- hidden -->\n## Notes\n- *drag* it"
    text = prose(body)
    assert "const" not in text and "hidden" not in text
    assert "Lanes flicker." in text and "drag" in text and "*" not in text


def test_every_chunk_carries_the_title() -> None:
    chunks = embedding_chunks("Board jitter", "First paragraph.\n\nSecond paragraph.")
    assert chunks == ["Board jitter\nFirst paragraph. Second paragraph."]


def test_an_empty_body_embeds_the_title_alone() -> None:
    assert embedding_chunks("  Board   jitter ", "```\ncode only\n```") == ["Board jitter"]
    assert embedding_chunks("", "") == []


@given(st.lists(st.text(alphabet="ab \n", max_size=3000), max_size=20))
def test_chunks_are_bounded_in_size_and_number(paragraphs: list[str]) -> None:
    chunks = chunk_prose("\n\n".join(paragraphs))
    assert len(chunks) <= MAX_CHUNKS
    assert all(0 < len(c) <= CHUNK_CHARS for c in chunks)


def test_the_digest_moves_with_the_model_and_the_text() -> None:
    base = chunks_digest("m1", ["a", "b"])
    assert base == chunks_digest("m1", ["a", "b"])
    assert base != chunks_digest("m2", ["a", "b"])
    assert base != chunks_digest("m1", ["ab"])
