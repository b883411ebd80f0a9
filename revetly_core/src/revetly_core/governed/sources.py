"""Registered document sources, the hits adapters return, the query, and the rules a hit must pass."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, Protocol, runtime_checkable

from revetly_core.governed.scope import Scope, check_name
from revetly_core.refusal import Refusal

Egress = Literal["none", "remote"]
MAX_QUERY_CHARS = 1000
MAX_HITS = 50


def passage_digest(passage: str) -> str:
    """SHA-256 (hex) of a passage's exact UTF-8 text."""
    return hashlib.sha256(passage.encode("utf-8")).hexdigest()


def _date(value: Any) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise Refusal("bad_date", f"{value!r} is not a date", "use YYYY-MM-DD") from None


@dataclass(frozen=True)
class RagSource:
    """A registered source: fixed scope, collection and revision, explicit egress, its provider."""

    source_id: str
    scope: Scope
    collection: str
    revision: str
    egress: Egress
    provider_id: str

    def __post_init__(self) -> None:
        check_name(self.source_id, "source_id")
        check_name(self.collection, "collection")
        check_name(self.revision, "revision")
        check_name(self.provider_id, "provider_id")
        if self.egress not in ("none", "remote"):
            raise Refusal("bad_egress", f"egress {self.egress!r} is neither 'none' nor 'remote'",
                          "declare egress='none' for local adapters, 'remote' for any network call")

    def to_dict(self) -> dict[str, Any]:
        return {"source_id": self.source_id, "scope": self.scope.to_dict(), "collection": self.collection,
                "revision": self.revision, "egress": self.egress, "provider_id": self.provider_id}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RagSource:
        return cls(data["source_id"], Scope.from_dict(data["scope"]), data["collection"],
                   data["revision"], data["egress"], data["provider_id"])


@dataclass(frozen=True)
class RagHit:
    """One passage as served: exact text and digest, identity, revision, scope and validity."""

    source_id: str
    document_id: str
    chunk_id: str
    revision: str
    scope: Scope
    passage: str
    sha256: str
    citation: str
    locator: str = ""
    jurisdiction: str | None = None
    effective_from: date | None = None
    effective_to: date | None = None
    score: float | None = field(default=None, compare=False)

    @classmethod
    def make(cls, source: RagSource, document_id: str, chunk_id: str, passage: str, citation: str,
             locator: str = "", jurisdiction: str | None = None, effective_from: date | str | None = None,
             effective_to: date | str | None = None) -> RagHit:
        """A hit for a source, its digest computed from the passage."""
        return cls(source.source_id, document_id, chunk_id, source.revision, source.scope, passage,
                   passage_digest(passage), citation, locator, jurisdiction,
                   _date(effective_from), _date(effective_to))

    def to_dict(self) -> dict[str, Any]:
        """Every field, unknowns as explicit nulls."""
        return {"source_id": self.source_id, "document_id": self.document_id, "chunk_id": self.chunk_id,
                "revision": self.revision, "scope": self.scope.to_dict(), "passage": self.passage,
                "sha256": self.sha256, "citation": self.citation, "locator": self.locator,
                "jurisdiction": self.jurisdiction,
                "effective_from": self.effective_from.isoformat() if self.effective_from else None,
                "effective_to": self.effective_to.isoformat() if self.effective_to else None,
                "score": self.score}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RagHit:
        return cls(data["source_id"], data["document_id"], data["chunk_id"], data["revision"],
                   Scope.from_dict(data["scope"]), data["passage"], data["sha256"], data["citation"],
                   data.get("locator", ""), data.get("jurisdiction"), _date(data.get("effective_from")),
                   _date(data.get("effective_to")), data.get("score"))


@dataclass(frozen=True)
class RagQuery:
    """A search request: one source, the words, optional jurisdiction and as-of date, a hit limit."""

    source_id: str
    text: str
    jurisdiction: str | None = None
    as_of: date | None = None
    limit: int = 10

    def __post_init__(self) -> None:
        check_name(self.source_id, "source_id")
        if not self.text.strip() or len(self.text) > MAX_QUERY_CHARS:
            raise Refusal("bad_query", f"a query is 1-{MAX_QUERY_CHARS} characters of text",
                          "ask in a few words")
        if not 1 <= self.limit <= MAX_HITS:
            raise Refusal("bad_limit", f"limit {self.limit} is outside 1-{MAX_HITS}", "ask for fewer hits")
        if self.as_of is not None:  # an ISO string is accepted too
            object.__setattr__(self, "as_of", _date(self.as_of))

    def to_dict(self) -> dict[str, Any]:
        return {"source_id": self.source_id, "text": self.text, "jurisdiction": self.jurisdiction,
                "as_of": self.as_of.isoformat() if self.as_of else None, "limit": self.limit}


@runtime_checkable
class RagAdapter(Protocol):
    """Trusted owner code that reaches an existing retriever. Respect the monotonic deadline."""

    def search(self, source: RagSource, query: RagQuery, *, deadline: float) -> tuple[RagHit, ...]: ...

    def inspect(self, source: RagSource, document_id: str, chunk_id: str, *, deadline: float) -> RagHit: ...


def _malformed(detail: str) -> Refusal:
    return Refusal("provider_malformed_result", detail,
                   "fix the adapter: hits must carry the source's identity, revision, scope and digest")


def validate_hit(source: RagSource, hit: object) -> RagHit:
    """A hit must be a RagHit of this source, revision and scope, whose digest matches its passage."""
    if not isinstance(hit, RagHit):
        raise _malformed(f"the adapter returned {type(hit).__name__}, not a RagHit")
    if hit.source_id != source.source_id or hit.revision != source.revision or hit.scope != source.scope:
        raise _malformed(f"hit {hit.document_id}/{hit.chunk_id} names another source, revision or scope")
    if not isinstance(hit.passage, str) or passage_digest(hit.passage) != hit.sha256:
        raise _malformed(f"hit {hit.document_id}/{hit.chunk_id}: sha256 does not match the passage")
    if not hit.document_id or not hit.chunk_id:
        raise _malformed("a hit without a document or chunk id")
    return hit


def in_force(hit: RagHit, as_of: date) -> bool:
    """Validity is [effective_from, effective_to); asking for a date excludes an unknown start."""
    if hit.effective_from is None or hit.effective_from > as_of:
        return False
    return hit.effective_to is None or as_of < hit.effective_to


def matches_jurisdiction(hit: RagHit, jurisdiction: str) -> bool:
    """A requested jurisdiction keeps only hits that state exactly that jurisdiction."""
    return hit.jurisdiction == jurisdiction


def filter_hits(hits: tuple[RagHit, ...], query: RagQuery) -> tuple[RagHit, ...]:
    """Apply the query's jurisdiction and date filters; unfiltered unknowns stay in, as nulls."""
    kept = hits
    if query.jurisdiction is not None:
        kept = tuple(h for h in kept if matches_jurisdiction(h, query.jurisdiction))
    if query.as_of is not None:
        as_of = query.as_of
        kept = tuple(h for h in kept if in_force(h, as_of))
    return kept[: query.limit]


def unknown_fields(hit: RagHit) -> list[str]:
    """The validity fields a hit leaves unknown, named so a reader cannot miss them."""
    return [name for name, value in (("jurisdiction", hit.jurisdiction),
                                     ("effective_from", hit.effective_from),
                                     ("effective_to", hit.effective_to)) if value is None]
