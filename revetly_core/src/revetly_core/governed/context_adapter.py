"""RevetlyContextAdapter: a Revetly CONTEXT served as a governed source (egress ``none``).

The source's revision is the CONTEXT's corpus revision; after a new read pass the owner
registers the next revision, and receipts of the old one can no longer be inspected. Hits are
the artifacts' own words: one chunk (``body``) per artifact, the body text exactly as
get_artifact serves it, its digest computed from that text. Validity dates and jurisdiction are
not something a backlog states, so they stay explicit unknowns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from revetly_core.governed.scope import Scope
from revetly_core.governed.sources import RagHit, RagQuery, RagSource
from revetly_core.refusal import Refusal

if TYPE_CHECKING:
    from revetly_core.engine import Engine

PROVIDER_ID = "revetly-context"
CHUNK = "body"


def corpus_revision_name(number: object) -> str:
    """The source revision for a CONTEXT corpus revision number."""
    return f"corpus-{number}"


def artifact_passage(artifact: Mapping[str, Any]) -> str:
    """An artifact's own words: its body, else its title (a commit or an empty note)."""
    body = str(artifact.get("body") or "").strip()
    return body or str(artifact.get("title") or artifact["artifact_id"])


class RevetlyContextAdapter:
    """Adapter over one Engine: search_context finds the artifacts, get_artifact gives their words."""

    provider_id = PROVIDER_ID
    egress = "none"

    def __init__(self, engine: Engine, *, project: str | None = None) -> None:
        self.engine = engine
        self.project = project

    def current_revision(self) -> str:
        """The source revision matching the CONTEXT as it is now."""
        return corpus_revision_name(self.engine.context_health().get("corpus_revision"))

    def source(self, source_id: str, scope: Scope) -> RagSource:
        """A RagSource for the CONTEXT at its current corpus revision."""
        return RagSource(source_id, scope, self.project or "context", self.current_revision(), "none",
                         PROVIDER_ID)

    def _check_revision(self, source: RagSource) -> None:
        if self.current_revision() != source.revision:
            raise Refusal("source_changed", f"the CONTEXT moved past {source.revision}",
                          "the owner registers the source again at the current corpus revision")

    def _hit(self, source: RagSource, artifact_id: str) -> RagHit:
        artifact = self.engine.get_artifact(artifact_id, project=self.project)
        locator = str(artifact.get("source_path") or artifact.get("source_uri") or "")
        return RagHit.make(source, artifact["artifact_id"], CHUNK, artifact_passage(artifact),
                           f"{artifact['artifact_id']}: {artifact.get('title', '')}".strip(), locator)

    def search(self, source: RagSource, query: RagQuery, *, deadline: float) -> tuple[RagHit, ...]:
        """The top artifacts for the query, as hits of their own words."""
        self._check_revision(source)
        found = self.engine.search_context(query.text, limit=query.limit, project=self.project)
        return tuple(self._hit(source, row["artifact_id"]) for row in found["artifacts"])

    def inspect(self, source: RagSource, document_id: str, chunk_id: str, *, deadline: float) -> RagHit:
        """One artifact as a hit (chunk ``body``)."""
        self._check_revision(source)
        if chunk_id != CHUNK:
            raise Refusal("no_passage", f"artifacts have one chunk, {CHUNK!r}", f"use chunk {CHUNK!r}")
        return self._hit(source, document_id)
