"""search_context: ranked artifacts, their best passages, and the facts declared between them."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from revetly_core.answers.common import Absent, CutReport, Envelope, IdsCount, Marks


class LinkEntry(TypedDict):
    """The far ends of one link relation (at most three ids, the rest counted)."""

    ids: list[str]
    more: NotRequired[int]
    other_deleted: NotRequired[list[str]]


class SearchArtifact(Marks):
    """One ranked artifact row; links holds cites / cited_by / references / referenced_by /
    mentions / mentioned_by, each only when the artifact has such a link."""

    artifact_id: str
    title: str
    artifact_type: str
    kind: str
    status: str | None
    summary: str
    source_updated_at: str | None
    method: str
    links: dict[str, LinkEntry]
    project: NotRequired[str]


class Passage(TypedDict):
    """The best passage of one served artifact and the query words it holds."""

    artifact_id: str
    text: str
    words: list[str]
    method: str


class Fact(TypedDict):
    """A declared relation or a statement near the top of the ranking."""

    fact: str
    relation: str
    endpoints: list[str]
    band: str
    matched: bool
    stated_at: NotRequired[str | None]
    invalidated: NotRequired[bool]
    invalid_at: NotRequired[str | None]
    sources_retired: NotRequired[bool]


class ConceptRow(TypedDict):
    """An extracted entity standing for no artifact: real, never grounding to cite."""

    name: str
    summary: str
    summary_sentences_total: int
    mentioned_by: list[str]
    method: str


class InferredFactsCount(TypedDict):
    """On a full instance: the inferred facts served on the shelf's third band, of those matched."""

    served: int
    total: int
    method: str


class InferredCap(TypedDict):
    """How many inferred rows of each shelf were served, and the summary sentences each kept."""

    concepts: int
    facts: int
    summary_sentences: int | None


class Truncated(TypedDict):
    """Facts left out because they neither matched nor touched the top rows."""

    reason: str
    count: int


class Count(TypedDict):
    """A bare count."""

    count: int


class SearchAnswer(Envelope):
    """The answer of search_context."""

    query: str
    artifacts: list[SearchArtifact]
    passages: list[Passage]
    facts: list[Fact]
    deterministic_facts: int
    inferred_facts: Absent | InferredFactsCount
    concepts: Absent | list[ConceptRow]
    inferred_cap: NotRequired[InferredCap]
    truncated_concepts: NotRequired[CutReport]
    facts_truncated: NotRequired[Truncated]
    invalidated: NotRequired[Count]
    inferred_retired: NotRequired[Count]
    withheld: NotRequired[IdsCount]
    deleted: NotRequired[str]
    truncated_passages: NotRequired[CutReport]
    truncated_facts: NotRequired[CutReport]
    truncated_artifacts: NotRequired[CutReport]
