"""Writes and the review record: gated drafts, reviews, status with claims, decisions, captures."""

from revetly_core.writes.gate import (
    APP_EXTENSION,
    APP_MIME,
    ClientDeclaration,
    GateChoice,
    reviewer_tools_withheld,
    select_gate,
)
from revetly_core.writes.principal import Principal, resolve_local_principal

__all__ = [
    "APP_EXTENSION",
    "APP_MIME",
    "ClientDeclaration",
    "GateChoice",
    "Principal",
    "resolve_local_principal",
    "reviewer_tools_withheld",
    "select_gate",
]
