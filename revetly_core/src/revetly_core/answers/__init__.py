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
from revetly_core.answers.maintenance import (
    CheckAnswer,
    CheckProblem,
    CodeRepository,
    DanglingLink,
    DeclaredCommits,
    HostFilesWritten,
    InitAnswer,
    PassSource,
    PassSummary,
    RepairAnswer,
    RepairedFile,
    ReviewPage,
    ScaffoldedSource,
)
from revetly_core.answers.operate import (
    Address,
    AuditLinksAnswer,
    BackfillAnswer,
    BackfillPlan,
    BackfillPlanSource,
    BackfillRead,
    BackfillWindow,
    ConnectLine,
    DoctorAnswer,
    DoctorIndex,
    DoctorSource,
    DoctorWarning,
    Held,
    ManualPage,
    ManualTopic,
    ManualTopics,
    MethodCount,
    MigrateAnswer,
    MigrationPlan,
    MigrationStep,
    Probe,
    RereadPrice,
    WatchSummary,
)
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

COMMAND_TYPES: Mapping[str, object] = {
    "sync": PassSummary,
    "check": CheckAnswer,
    "check_repair": CheckAnswer,
    "doctor": DoctorAnswer,
    "backfill": BackfillPlan | BackfillAnswer,
    "migrate": MigrateAnswer,
    "audit_links": AuditLinksAnswer,
    "manual": ManualTopics | ManualPage,
    "watch": WatchSummary,
    "init": InitAnswer,
    "review_pages": list[ReviewPage],
}
"""Each CLI-only command's answer type (the engine method of that name returns it)."""


__all__ = [
    "ANSWER_TYPES",
    "COMMAND_TYPES",
    "Absent",
    "Address",
    "ArtifactAnswer",
    "ArtifactBranch",
    "ArtifactBrief",
    "ArtifactRecord",
    "AuditLinksAnswer",
    "AuthoringAnswer",
    "BackfillAnswer",
    "BackfillPlan",
    "BackfillPlanSource",
    "BackfillRead",
    "BackfillWindow",
    "BacklogAnswer",
    "BacklogRow",
    "BindingAnswer",
    "BranchNode",
    "CheckAnswer",
    "CheckProblem",
    "CodeRepository",
    "ConnectLine",
    "ConversationAnswer",
    "CutReport",
    "DanglingLink",
    "DeclaredCommits",
    "DeltasAnswer",
    "DoctorAnswer",
    "DoctorIndex",
    "DoctorSource",
    "DoctorWarning",
    "DriftAnswer",
    "Envelope",
    "Fact",
    "Freshness",
    "GateAnswer",
    "HealthAnswer",
    "Held",
    "HostFilesWritten",
    "InitAnswer",
    "ManualPage",
    "ManualTopic",
    "ManualTopics",
    "Marks",
    "MethodCount",
    "MigrateAnswer",
    "MigrationPlan",
    "MigrationStep",
    "PassSource",
    "PassSummary",
    "Passage",
    "Probe",
    "RepairAnswer",
    "RepairedFile",
    "RereadPrice",
    "ReviewList",
    "ReviewPage",
    "ReviewRow",
    "ReviewState",
    "Reviser",
    "ScaffoldedSource",
    "ScopeAnswer",
    "SearchAnswer",
    "SearchArtifact",
    "Statement",
    "StatusAnswer",
    "WatchSummary",
    "WithheldArtifact",
]
