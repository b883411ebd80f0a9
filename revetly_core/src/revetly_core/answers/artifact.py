"""get_artifact: one artifact's brief, its full record (history_after), or its branch (depth)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from revetly_core.answers.backlog import BacklogRow
from revetly_core.answers.common import Absent, CutReport, Envelope, JSONObject, Marks


class NamingCommit(TypedDict):
    """A commit whose message names the artifact."""

    sha: str
    subject: str | None
    at: str | None
    named_in: NotRequired[str]


class NamedByCommits(TypedDict):
    """The commits naming an artifact: how many, and the newest listed."""

    total: int
    listed: list[NamingCommit]
    more: NotRequired[int]


class FullRecordHint(TypedDict):
    """What the full record (history_after='') would add to the brief."""

    history_entries: int
    change_notes: int
    metadata_keys: list[str]
    inferred_links: Absent | int
    inferred_summary: bool


class InferredLinkRow(TypedDict):
    """One fact a model extracted joining the artifact to another node (never declared)."""

    name: str
    target_id: str | None
    relation: str
    fact: str
    method: str
    unnamed_endpoints: NotRequired[bool]


class InferredSummaryCut(TypedDict):
    """The inferred summary was fitted: how many sentences it holds and how many were served."""

    reason: str
    sentences_total: int
    sentences_served: int


class BodyTruncated(TypedDict):
    """The body's head was served to fit the read budget."""

    reason: str
    total_chars: int
    served_chars: int
    note: str


class RecordLink(TypedDict):
    """One link of the full record, in either direction."""

    relation: str
    method: str
    direction: str
    other: str
    detail: NotRequired[JSONObject]
    other_deleted: NotRequired[bool]
    other_held: NotRequired[bool]
    retracted: NotRequired[bool]
    retracted_at: NotRequired[str]


class HistoryEntry(TypedDict, total=False):
    """One change in the artifact's history."""

    revision: str
    at: str | None
    change: str
    author: str | None
    summary: str | None


CommitField = Literal["repository", "author", "author_email", "files", "files_more", "merge"]
"""The metadata of a commit artifact its brief serves beside the record."""


class ArtifactBrief(Envelope, Marks):
    """get_artifact's brief (a commit's brief adds its repository, author, files, merge).

    The keys after the first that is sometimes absent are NotRequired in the type: the brief is
    built in its served key order, which a TypedDict literal could not keep. The brief always
    carries body, acceptance_criteria, declared_links and full_record.
    """

    artifact_id: str
    title: str
    status: str | None
    artifact_type: str
    kind: str
    owner: str | None
    source_uri: str | None
    source_path: str | None
    source_updated_at: str | None
    created_at: str | None
    parent: str | None
    from_project: NotRequired[str]
    body: NotRequired[str]
    body_truncated: NotRequired[BodyTruncated]
    acceptance_criteria: NotRequired[list[str]]
    criteria_checked: NotRequired[list[bool]]
    criteria_unparsed: NotRequired[bool]
    declared_links: NotRequired[dict[str, list[str]]]
    declared_links_other_deleted: NotRequired[list[str]]
    declared_links_truncated: NotRequired[CutReport]
    repository: NotRequired[str]
    author: NotRequired[str | None]
    author_email: NotRequired[str | None]
    files: NotRequired[list[Any]]
    files_more: NotRequired[int]
    merge: NotRequired[bool]
    open_questions: NotRequired[list[Any]]
    named_by_commits: NotRequired[NamedByCommits]
    inferred_summary: NotRequired[str]
    inferred_summary_truncated: NotRequired[InferredSummaryCut]
    entity_types_present: NotRequired[list[str]]
    full_record: NotRequired[FullRecordHint]


class RecordKeys(TypedDict):
    """What the full record adds to the brief: metadata, links and a page of history."""

    metadata: JSONObject
    metadata_truncated: NotRequired[CutReport]
    links: list[RecordLink]
    deterministic_links: int
    inferred_links: Absent | list[InferredLinkRow]
    inferred_links_truncated: NotRequired[CutReport]
    history_entries: list[HistoryEntry]
    history_entries_truncated: NotRequired[CutReport]
    history_total: int
    history_next: NotRequired[str]


class ArtifactRecord(ArtifactBrief, RecordKeys):
    """get_artifact with history_after (or deleted): the brief plus metadata, links, history."""


class WithheldArtifact(Envelope, Marks):
    """An artifact CONTEXT holds as withheld: identity only, never its body."""

    artifact_id: str
    in_context: bool
    withheld: bool
    title: str
    status: str | None
    artifact_type: str
    kind: str
    source_uri: str | None
    source_path: str | None
    source_updated_at: str | None


class BranchNode(BacklogRow):
    """One node of a branch tree (a compact row) and the children walked beneath it."""

    children: list[BranchNode]
    children_not_walked: NotRequired[int]
    children_cut: NotRequired[int]


class WithdrawnItem(BacklogRow):
    """A deleted node the branch took out, with how many nodes went with it."""

    under: str | None
    took_out: int


class Withdrawn(TypedDict):
    """What deletion withdrew from the branch."""

    reason: str
    count: int
    took_out: int
    items: list[WithdrawnItem]
    truncated: NotRequired[CutReport]


class RollupGroup(TypedDict):
    """The nodes of one status or type: how many, and their ids."""

    count: int
    ids: list[str]
    ids_more: NotRequired[int]


class Rollup(TypedDict):
    """The branch counted by status and by type."""

    by_status: dict[str, RollupGroup]
    by_type: dict[str, RollupGroup]


class BranchTruncated(CutReport):
    """The branch cut deepest-first to fit the budget (and the rollup's ids capped)."""

    cut: str
    rollup_ids_cap: NotRequired[int]


class ArtifactBranch(Envelope):
    """get_artifact with depth: the tree beneath the artifact and its rollup."""

    artifact_id: str
    depth: int | str
    depth_source: str
    depth_reached: int
    tree: BranchNode
    rollup: Rollup
    truncated: NotRequired[BranchTruncated]
    cycles: NotRequired[list[Any]]
    withdrawn: NotRequired[Withdrawn]
    inferred: NotRequired[Absent | JSONObject]


ArtifactAnswer = ArtifactBrief | ArtifactRecord | ArtifactBranch | WithheldArtifact
"""The answer of get_artifact, by the mode the arguments chose."""
