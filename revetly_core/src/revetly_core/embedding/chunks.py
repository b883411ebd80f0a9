"""What of an artifact is embedded: its title and the body's own prose, cut into chunks."""

from __future__ import annotations

import hashlib
import re

CHUNK_CHARS = 1_200
"""A chunk holds at most this much prose (the title rides on every chunk)."""
MAX_CHUNKS = 8
"""Prose past this many chunks is not embedded (the keyword leg still reads it)."""

_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_MARKUP = re.compile(r"^[#>*\-+|\s]+|[`*_]+", re.M)
_BLANK = re.compile(r"\n\s*\n")


def prose(body: str) -> str:
    """The body without fenced code, HTML comments and line markup (what a reader reads as prose)."""
    text = _COMMENT.sub(" ", _FENCED.sub(" ", body))
    return _MARKUP.sub(" ", text)


def chunk_prose(text: str) -> list[str]:
    """Paragraphs packed into chunks of at most CHUNK_CHARS (a longer paragraph is cut), at most
    MAX_CHUNKS of them."""
    chunks: list[str] = []
    current = ""
    for paragraph in (" ".join(p.split()) for p in _BLANK.split(text)):
        while paragraph:
            piece, paragraph = paragraph[:CHUNK_CHARS], paragraph[CHUNK_CHARS:]
            if current and len(current) + 1 + len(piece) > CHUNK_CHARS:
                chunks.append(current)
                current = piece
            else:
                current = f"{current} {piece}".strip()
    if current:
        chunks.append(current)
    return chunks[:MAX_CHUNKS]


def embedding_chunks(title: str, body: str) -> list[str]:
    """The texts embedded for one artifact: the title with each prose chunk (the title alone
    when there is no prose)."""
    head = " ".join(title.split())
    parts = chunk_prose(prose(body))
    if not parts:
        return [head] if head else []
    return [f"{head}\n{part}".strip() for part in parts]


def chunks_digest(model_id: str, chunks: list[str]) -> str:
    """The content hash stored vectors are keyed by: the model and the exact texts embedded."""
    digest = hashlib.sha256(model_id.encode())
    for chunk in chunks:
        digest.update(b"\0" + chunk.encode("utf-8", "replace"))
    return digest.hexdigest()
