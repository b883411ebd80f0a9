"""Qualifiers: what judges a reviewed candidate before it may be activated.

A qualifier is owner configuration, an object with a ``name``, a ``kind`` and
``qualify(proposal, runtime_versions) -> {"verdict", "evidence"}``. The built-in
``DiagnosticQualifier`` is diagnostic and always inconclusive, so it can never activate
anything. Only a qualifier of kind ``trusted`` (the application's own qualification process)
can produce an accepted qualification; whatever a diagnostic qualifier answers is kept as
inconclusive.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from revetly_core.refusal import Refusal

QualifierKind = Literal["diagnostic", "trusted"]
Verdict = Literal["accepted", "inconclusive", "rejected"]
MAX_EVIDENCE_KEYS = 64


@runtime_checkable
class Qualifier(Protocol):
    """Owner-supplied qualification of one reviewed candidate."""

    name: str
    kind: QualifierKind

    def qualify(self, proposal: dict[str, Any], runtime_versions: dict[str, str]) -> dict[str, Any]:
        ...


class QualifierAnswer(BaseModel):
    """What a qualifier returns (validated; anything else is a failed, charged attempt)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    evidence: dict[str, Any] = Field(default_factory=dict, max_length=MAX_EVIDENCE_KEYS)


class DiagnosticQualifier:
    """The offline diagnostic evaluator: it describes the candidate and is always inconclusive."""

    name = "offline-diagnostic"
    kind: QualifierKind = "diagnostic"

    def qualify(self, proposal: dict[str, Any], runtime_versions: dict[str, str]) -> dict[str, Any]:
        compiled = proposal.get("compiled") or {}
        return {"verdict": "inconclusive",
                "evidence": {"predicates": len(compiled.get("applies_when", []))
                             + len(compiled.get("requires", [])),
                             "sources": len(proposal["sources"]),
                             "note": "diagnostic only: no production qualification"}}


def check_qualifier(qualifier: object) -> Qualifier:
    """A qualifier has a name, a kind of diagnostic or trusted, and a qualify method."""
    if (not isinstance(qualifier, Qualifier)
            or getattr(qualifier, "kind", None) not in ("diagnostic", "trusted")
            or not isinstance(getattr(qualifier, "name", None), str) or not 0 < len(qualifier.name) <= 64):
        raise Refusal("bad-qualifier", "a qualifier has a name, a kind (diagnostic or trusted) and qualify()",
                      "pass DiagnosticQualifier() or the application's trusted qualifier")
    return qualifier


def parse_answer(answer: object) -> QualifierAnswer:
    """A qualifier's answer, validated (a ValueError for anything else)."""
    try:
        return QualifierAnswer.model_validate(answer)
    except ValidationError as exc:
        raise ValueError("malformed qualifier answer") from exc


def kept_verdict(kind: QualifierKind, verdict: Verdict) -> Verdict:
    """The verdict kept: a diagnostic qualifier's answer is never more than inconclusive."""
    return "inconclusive" if kind == "diagnostic" and verdict == "accepted" else verdict
