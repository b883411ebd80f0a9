"""get_scope (binding, drift, deltas) and get_authoring_context: what binds a scope, and how it moved."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from revetly_core.answers.common import (
    Absent,
    CutReport,
    Envelope,
    IdsCount,
    JSONObject,
    Marks,
    Reviser,
)
from revetly_core.answers.search import Count, Fact, Passage, SearchArtifact, Truncated


class Statement(TypedDict):
    """One statement binding a scope member: who states it, on which member, found how."""

    artifact_id: str
    title: str | None
    artifact_type: str | None
    status: str | None
    statement: str
    bears_on: str
    method: NotRequired[str]
    position: NotRequired[str]
    stated_at: NotRequired[str | None]
    source_path: NotRequired[str | None]
    source_uri: NotRequired[str | None]
    also_bears_on: NotRequired[list[str]]
    via: NotRequired[str]
    superseded_by: NotRequired[list[str]]
    relation: NotRequired[str]
    other: NotRequired[str]
    unnamed_endpoints: NotRequired[bool]
    sources_retired: NotRequired[bool]


class InferredStatementsCount(TypedDict):
    """On a full instance: the inferred statements served after the stated ones, of those held."""

    served: int
    total: int
    method: str


class Member(TypedDict):
    """One member of the walked scope."""

    artifact_id: str
    title: str | None
    artifact_type: str | None
    status: str | None
    parent: str | None
    position: str
    distance: int


class RevisedMember(TypedDict):
    """A scope member a decision note revises."""

    artifact_id: str
    revised_by: list[Reviser]


class GatheredFrom(TypedDict):
    """The document and entity types a binding read gathers statements from."""

    document_types: list[str]
    entity_types: list[str]


class BindingScope(TypedDict, total=False):
    """The scope a binding answer walked: an artifact, a topic's matches, or a path's stories."""

    kind: str
    artifact_id: str
    depth: int
    topic: str
    words: list[str]
    matched: list[JSONObject]
    weaker_matches: int
    note: str
    roots: list[str]
    member_count: int
    members: list[Member]
    members_truncated: CutReport
    revised: list[RevisedMember]


class PathBlock(TypedDict):
    """The file a path binding resolved, per declared code repository."""

    path: str
    repos: list[JSONObject]


class BindingAnswer(Envelope):
    """get_scope(question='binding')."""

    question: str
    scope: BindingScope
    gathered_from: GatheredFrom
    entity_types_present: Absent | list[str]
    statements: list[Statement]
    statements_truncated: NotRequired[CutReport]
    deterministic_statements: int
    inferred_statements: Absent | InferredStatementsCount
    inferred_retired: NotRequired[Count]
    ancestors_summarised: NotRequired[JSONObject]
    truncated: NotRequired[CutReport]
    note: NotRequired[str]
    path: NotRequired[PathBlock]
    behind: NotRequired[list[JSONObject]]
    behind_truncated: NotRequired[CutReport]
    decisions: NotRequired[list[JSONObject]]
    reason: NotRequired[str]


class WindowBlock(TypedDict):
    """The time window of a drift or deltas read, and the clock it is read on."""

    since: str | None
    until: str | None
    clock: NotRequired[str]


class ReadScope(TypedDict):
    """The whole project, or one artifact's branch."""

    kind: str
    artifact_id: NotRequired[str]


class Provenance(TypedDict):
    """Whether any of the answer was inferred (never, in this edition)."""

    inferred: bool


class DriftCounts(TypedDict):
    """How the delivered work in the window stands against its criteria."""

    delivered: int
    clean: int
    with_departures: int
    no_criteria_declared: int
    done_without_record: int
    checked_in_source: int
    checked_clean: int
    departures: int


class DriftAnswer(Envelope):
    """get_scope(question='drift'): delivered work against the criteria it declared."""

    question: str
    scope: ReadScope
    window: WindowBlock
    provenance: Provenance
    counts: DriftCounts
    delivered: list[JSONObject]
    delivered_truncated: NotRequired[CutReport]
    departures: list[JSONObject]
    truncated_departures: NotRequired[CutReport]
    checked_in_source: list[JSONObject]
    checked_in_source_truncated: NotRequired[CutReport]
    done_without_record: list[JSONObject]
    done_without_record_truncated: NotRequired[CutReport]
    no_criteria_declared: list[JSONObject]
    no_criteria_declared_truncated: NotRequired[CutReport]
    clean: list[str]
    clean_truncated: NotRequired[CutReport]


class Change(TypedDict):
    """One dated change of an artifact."""

    at: str
    clock: str
    change: str
    revision: NotRequired[str | None]


class ChangedArtifact(TypedDict):
    """An artifact that changed in the window, and its changes."""

    artifact_id: str
    title: str | None
    artifact_type: str | None
    status: str | None
    last_change_at: str | None
    clock: str
    changes: list[Change]
    deleted: NotRequired[bool]


class DeltasCounts(TypedDict):
    """How many artifacts changed, and how many changes by kind."""

    artifacts: int
    changes: int
    by_change: dict[str, int]


class CommitCounts(TypedDict):
    """Commits in the window, per commits source."""

    clock: str
    by_source: dict[str, int]


class Undated(IdsCount):
    """Artifacts whose source states no time, so no window can place them."""

    ids_truncated: NotRequired[CutReport]


class DeltasAnswer(Envelope):
    """get_scope(question='deltas'): what changed in a window, on one clock."""

    question: str
    clock: str
    scope: ReadScope
    window: WindowBlock
    provenance: Provenance
    counts: DeltasCounts
    changed: list[ChangedArtifact]
    truncated_changed: NotRequired[CutReport]
    commits: CommitCounts
    edits: dict[str, bool]
    links: dict[str, bool]
    external_references: dict[str, int]
    undated: NotRequired[Undated]


ScopeAnswer = BindingAnswer | DriftAnswer | DeltasAnswer
"""The answer of get_scope, by the question asked."""


class BacklogBrief(Marks):
    """A nearest backlog item, slimmed to draft from, with the marks its row carries."""

    artifact_id: str
    title: str
    status: str | None
    artifact_type: str
    parent: str | None
    method: str
    acceptance_criteria: NotRequired[list[str]]
    acceptance_criteria_truncated: NotRequired[int]
    declared_links: NotRequired[dict[str, list[str]]]
    declared_links_truncated: NotRequired[int]
    body: NotRequired[str]
    body_truncated: NotRequired[dict[str, int]]


class Related(TypedDict):
    """search_context's answer for the topic, minus what the backlog block already holds."""

    artifacts: list[SearchArtifact]
    passages: list[Passage]
    facts: list[Fact]
    deterministic_facts: int
    facts_truncated: NotRequired[Truncated]
    invalidated: NotRequired[Count]
    inferred_facts: Absent
    concepts: Absent
    artifacts_in_backlog: NotRequired[list[str]]
    truncated_passages: NotRequired[CutReport]
    truncated_facts: NotRequired[CutReport]
    truncated_artifacts: NotRequired[CutReport]


class StoryPaths(TypedDict):
    """The files the nearest stories' commits touched, weighed."""

    listed: list[JSONObject]
    total: int
    reason: NotRequired[str]
    truncated: NotRequired[CutReport]


class AuthoringBinding(TypedDict, total=False):
    """What binds the nearest backlog (or a note that nothing was found to bind)."""

    scope: JSONObject
    statements: list[Statement]
    deterministic_statements: int
    topic_error: JSONObject
    pointers: dict[str, Any]
    truncated: CutReport
    note: str


class AuthoringAnswer(Envelope):
    """get_authoring_context: the bundle to draft a story from."""

    topic: str
    backlog: list[BacklogBrief]
    related: Related
    paths: StoryPaths
    binding: AuthoringBinding
