"""Revetly's engine: an instance's sources read into one local CONTEXT, and the reads over it."""

from typing import TYPE_CHECKING, Any

from revetly_core.model import Artifact, HistoryEntry, Link
from revetly_core.refusal import Refusal
from revetly_core.refusal_codes import RefusalCode, canonical_code

if TYPE_CHECKING:
    from revetly_core.config import Config, load_config, parse_config
    from revetly_core.engine import Engine
    from revetly_core.governed import (
        DashboardIdentity,
        DiagnosticQualifier,
        EvidenceService,
        ExampleExportService,
        ExecutionContext,
        FeedbackDashboard,
        FeedbackRecovery,
        FeedbackService,
        GuardedDispatcher,
        GuardedTool,
        OutcomeReport,
        ProposalService,
        RagAdapter,
        RagHit,
        RagQuery,
        RagService,
        RagSource,
        RevetlyContextAdapter,
        RuleLifecycle,
        Scope,
        Session,
        SQLiteRagProvider,
        UsageLedger,
        VerificationService,
    )

__version__ = "0.1.0"

_GOVERNED = frozenset({
    "EvidenceService", "FeedbackService", "OutcomeReport", "RagAdapter", "RagHit", "RagQuery",
    "RagService", "RagSource", "RevetlyContextAdapter", "SQLiteRagProvider", "Scope", "Session",
    # example export and recovery
    "ExampleExportService", "FeedbackRecovery",
    # guarded execution and verification
    "ExecutionContext", "GuardedDispatcher", "GuardedTool", "UsageLedger", "VerificationService",
    # proposals and the rule lifecycle
    "DiagnosticQualifier", "ProposalService", "RuleLifecycle",
    # the feedback dashboard
    "DashboardIdentity", "FeedbackDashboard",
})


def __getattr__(name: str) -> Any:
    """The engine, its configuration and the governed layer load on first use: importing a
    plain module of the package (the CLI reads `revetly_core.surface.twins` at start) must not
    load pydantic, the store or `cryptography`."""
    if name == "Engine":
        from revetly_core.engine import Engine

        return Engine
    if name in ("Config", "load_config", "parse_config"):
        from revetly_core import config

        return getattr(config, name)
    if name in _GOVERNED:
        from revetly_core import governed

        return getattr(governed, name)
    raise AttributeError(f"module 'revetly_core' has no attribute {name!r}")


__all__ = [
    "Artifact",
    "Config",
    "DashboardIdentity",
    "DiagnosticQualifier",
    "Engine",
    "EvidenceService",
    "ExampleExportService",
    "ExecutionContext",
    "FeedbackDashboard",
    "FeedbackRecovery",
    "FeedbackService",
    "GuardedDispatcher",
    "GuardedTool",
    "HistoryEntry",
    "Link",
    "OutcomeReport",
    "ProposalService",
    "RagAdapter",
    "RagHit",
    "RagQuery",
    "RagService",
    "RagSource",
    "Refusal",
    "RefusalCode",
    "RevetlyContextAdapter",
    "RuleLifecycle",
    "SQLiteRagProvider",
    "Scope",
    "Session",
    "UsageLedger",
    "VerificationService",
    "__version__",
    "canonical_code",
    "load_config",
    "parse_config",
]
