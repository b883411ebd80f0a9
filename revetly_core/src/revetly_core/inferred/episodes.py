"""An artifact as a Graphiti episode: its own words, named for its id, at its source time."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from revetly_core.model import Artifact

EPISODE_TEXT_LIMIT = 8_000
"""Characters of an artifact's body one episode carries (a model's context is finite)."""
EPISODE_FORMAT = "1"
"""Bumped when the episode text changes shape, so every artifact is extracted again."""


@dataclass(frozen=True)
class Episode:
    """What Graphiti is given for one artifact."""

    artifact_id: str
    name: str
    body: str
    source_description: str
    reference_time: datetime
    digest: str


def episode_text(a: Artifact) -> str:
    """The artifact's id and title, then the head of its body: the words extraction reads."""
    return f"{a.id}: {a.title}\n\n{a.body[:EPISODE_TEXT_LIMIT]}".strip()


def reference_time(a: Artifact) -> datetime:
    """The episode's time: what the source says (updated, else created), else the epoch."""
    for stamp in (a.source_updated_at, a.created_at):
        if stamp:
            try:
                parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                continue
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return datetime(1970, 1, 1, tzinfo=UTC)


def episode_of(a: Artifact, model: str) -> Episode:
    """The artifact's episode; its digest covers the text, the time and the model, so an
    artifact is extracted again only when one of them changed."""
    body = episode_text(a)
    when = reference_time(a)
    digest = hashlib.sha256(
        f"{EPISODE_FORMAT}\0{model}\0{when.isoformat()}\0{body}".encode("utf-8", "replace"))
    return Episode(a.id, a.id, body, f"{a.type} ({a.provenance})", when, digest.hexdigest())
