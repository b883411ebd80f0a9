"""The governed document layer: an encrypted evidence vault, grants, governed retrieval, feedback,
guarded execution and its independent verification, proposals, the rule lifecycle and the
feedback dashboard."""

from revetly_core.governed.budget import DEFAULT_RESULT_BUDGET, enforce_result_budget
from revetly_core.governed.context_adapter import RevetlyContextAdapter
from revetly_core.governed.dashboard import DashboardIdentity, FeedbackDashboard
from revetly_core.governed.dispatcher import GuardedDispatcher
from revetly_core.governed.export import ExampleExportService
from revetly_core.governed.feedback import FeedbackService, OutcomeReport
from revetly_core.governed.guarded_tools import ExecutionContext, GuardedHandler, GuardedTool
from revetly_core.governed.lifecycle import RuleLifecycle
from revetly_core.governed.principals import Grant, Session, read_credential_file
from revetly_core.governed.proposals import ProposalService
from revetly_core.governed.provider_sqlite import SQLiteRagProvider
from revetly_core.governed.qualification import DiagnosticQualifier
from revetly_core.governed.rag_service import RagService
from revetly_core.governed.recovery import FeedbackRecovery
from revetly_core.governed.scope import Scope
from revetly_core.governed.sources import RagAdapter, RagHit, RagQuery, RagSource, passage_digest
from revetly_core.governed.usage import UsageLedger, UsageReport
from revetly_core.governed.vault import EvidenceService
from revetly_core.governed.verification import VerificationService

__all__ = [
    "DEFAULT_RESULT_BUDGET",
    "DashboardIdentity",
    "DiagnosticQualifier",
    "EvidenceService",
    "ExampleExportService",
    "ExecutionContext",
    "FeedbackDashboard",
    "FeedbackRecovery",
    "FeedbackService",
    "Grant",
    "GuardedDispatcher",
    "GuardedHandler",
    "GuardedTool",
    "OutcomeReport",
    "ProposalService",
    "RagAdapter",
    "RagHit",
    "RagQuery",
    "RagService",
    "RagSource",
    "RevetlyContextAdapter",
    "RuleLifecycle",
    "SQLiteRagProvider",
    "Scope",
    "Session",
    "UsageLedger",
    "UsageReport",
    "VerificationService",
    "enforce_result_budget",
    "passage_digest",
    "read_credential_file",
]
