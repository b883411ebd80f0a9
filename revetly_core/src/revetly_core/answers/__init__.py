"""Typed answers: one TypedDict per payload a tool or command returns (docs/decisions/0018).

The reads build plain dicts annotated with these types, so mypy checks the keys they build
while the JSON bytes stay what they were; the MCP shell serves each tool's type as its
outputSchema, and the CLI renderers read the same types.
"""

from __future__ import annotations

from collections.abc import Mapping

from revetly_core.answers.artifact import (
    ArtifactAnswer,
    ArtifactBranch,
    ArtifactBrief,
    ArtifactRecord,
    BranchNode,
    WithheldArtifact,
)
from revetly_core.answers.backlog import BacklogAnswer, BacklogRow
from revetly_core.answers.common import Absent, CutReport, Envelope, Freshness, Marks, Reviser
from revetly_core.answers.health import HealthAnswer
from revetly_core.answers.scope import (
    AuthoringAnswer,
    BindingAnswer,
    DeltasAnswer,
    DriftAnswer,
    ScopeAnswer,
    Statement,
)
from revetly_core.answers.search import Fact, Passage, SearchAnswer, SearchArtifact
from revetly_core.answers.writes import (
    ConversationAnswer,
    GateAnswer,
    ReviewList,
    ReviewRow,
    ReviewState,
    StatusAnswer,
)

ANSWER_TYPES: Mapping[str, object] = {
    "search_context": SearchAnswer,
    "get_artifact": ArtifactAnswer,
    "list_backlog": BacklogAnswer,
    "get_scope": ScopeAnswer,
    "get_authoring_context": AuthoringAnswer,
    "context_health": HealthAnswer,
    "list_reviews": ReviewList,
    "review_state": ReviewState,
    "submit_draft": GateAnswer | ReviewState,
    "submit_revision": GateAnswer | ReviewState,
    "raise_review": GateAnswer | ReviewState,
    "set_status": StatusAnswer,
    "record_conversation": ConversationAnswer,
    "resolve_review": ReviewState,
    "withdraw_review": ReviewState,
}
"""Each served tool's answer type (a TypedDict, or a union of them where the mode decides)."""

__all__ = [
    "ANSWER_TYPES",
    "Absent",
    "ArtifactAnswer",
    "ArtifactBranch",
    "ArtifactBrief",
    "ArtifactRecord",
    "AuthoringAnswer",
    "BacklogAnswer",
    "BacklogRow",
    "BindingAnswer",
    "BranchNode",
    "ConversationAnswer",
    "CutReport",
    "DeltasAnswer",
    "DriftAnswer",
    "Envelope",
    "Fact",
    "Freshness",
    "GateAnswer",
    "HealthAnswer",
    "Marks",
    "Passage",
    "ReviewList",
    "ReviewRow",
    "ReviewState",
    "Reviser",
    "ScopeAnswer",
    "SearchAnswer",
    "SearchArtifact",
    "Statement",
    "StatusAnswer",
    "WithheldArtifact",
]
