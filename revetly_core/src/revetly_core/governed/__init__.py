"""The governed document layer: an encrypted evidence vault, grants, governed retrieval, feedback."""

from revetly_core.governed.budget import DEFAULT_RESULT_BUDGET, enforce_result_budget
from revetly_core.governed.context_adapter import RevetlyContextAdapter
from revetly_core.governed.feedback import FeedbackService, OutcomeReport
from revetly_core.governed.principals import Grant, Session, read_credential_file
from revetly_core.governed.provider_sqlite import SQLiteRagProvider
from revetly_core.governed.rag_service import RagService
from revetly_core.governed.scope import Scope
from revetly_core.governed.sources import RagAdapter, RagHit, RagQuery, RagSource, passage_digest
from revetly_core.governed.vault import EvidenceService

__all__ = [
    "DEFAULT_RESULT_BUDGET",
    "EvidenceService",
    "FeedbackService",
    "Grant",
    "OutcomeReport",
    "RagAdapter",
    "RagHit",
    "RagQuery",
    "RagService",
    "RagSource",
    "RevetlyContextAdapter",
    "SQLiteRagProvider",
    "Scope",
    "Session",
    "enforce_result_budget",
    "passage_digest",
    "read_credential_file",
]
